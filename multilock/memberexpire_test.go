package multilock_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/keys"
	"github.com/goredisson/redisson/multilock"
	"github.com/goredisson/redisson/redissontest"
)

// A multi-lock taken with a wait and a lease sets its members' final lease
// with Expire. A read lock's hash is shared with other holders: the final
// lease must not cut it below what they need, or a writer gets in while
// they believe they hold.
func TestReadMemberExpireKeepsOtherReaders(t *testing.T) {
	srv := redistest.StartServer(t)
	c1, c2, c3 := redissontest.ClientAt(t, srv.Addr()), redissontest.ClientAt(t, srv.Addr()), redissontest.ClientAt(t, srv.Addr())
	admin := redistest.Client(t, srv)
	ctx := context.Background()
	r1, ok, err := c1.ReadWriteLock("cfg").ReadLock().TryLock(ctx) // watchdog: 30s
	require.NoError(t, err)
	require.True(t, ok)
	defer r1.Unlock(ctx)
	m := multilock.New(c2.ReadWriteLock("cfg").ReadLock(), c2.Lock("x"))
	h, ok, err := m.TryLock(ctx, multilock.WithWait(time.Second), multilock.WithLease(300*time.Millisecond))
	require.NoError(t, err)
	require.True(t, ok)
	defer h.Unlock(ctx)

	require.Greater(t, admin.PTTL(ctx, "cfg").Val(), 5*time.Second, "the hash keeps reader 1's lease")
	own := keys.ReadWriteLockTimeoutPrefix("cfg", core.OwnerField(c2.ID(), h.Owner())) + ":1"
	require.LessOrEqual(t, admin.PTTL(ctx, own).Val(), 300*time.Millisecond, "the member's own timeout key has the final lease")
	// Once the member's lease has run out in Redis, a writer still finds
	// reader 1 there.
	redistest.Eventually(t, 5*time.Second, "the member's timeout key expired", func() bool {
		return admin.Exists(ctx, own).Val() == 0
	})
	_, ok, err = c3.ReadWriteLock("cfg").WriteLock().TryLock(ctx)
	require.NoError(t, err)
	require.False(t, ok, "a writer got in while reader 1 holds")
	require.NoError(t, r1.Err())
}

// The read member of the writer (a multi-lock of the owner that holds the
// write lock) must not cut the write hold's lease.
func TestReadMemberExpireKeepsOwnWriteHold(t *testing.T) {
	srv := redistest.StartServer(t)
	c1, c3 := redissontest.ClientAt(t, srv.Addr()), redissontest.ClientAt(t, srv.Addr())
	admin := redistest.Client(t, srv)
	ctx := context.Background()
	rw := c1.ReadWriteLock("cfg")
	w0, err := rw.WriteLock().Lock(ctx)
	require.NoError(t, err)
	defer w0.Unlock(ctx)
	m := multilock.New(rw.ReadLock(), c1.Lock("x"))
	h, ok, err := m.TryLock(ctx, multilock.WithOwner(w0.Owner()), multilock.WithWait(time.Second), multilock.WithLease(300*time.Millisecond))
	require.NoError(t, err)
	require.True(t, ok)
	require.Greater(t, admin.PTTL(ctx, "cfg").Val(), 5*time.Second, "the hash keeps the write hold's lease")
	<-h.Done() // the fixed lease ended
	own := keys.ReadWriteLockTimeoutPrefix("cfg", core.OwnerField(c1.ID(), w0.Owner())) + ":1"
	redistest.Eventually(t, 5*time.Second, "the read member's timeout key expired", func() bool {
		return admin.Exists(ctx, own).Val() == 0
	})
	_, ok, err = c3.ReadWriteLock("cfg").WriteLock().TryLock(ctx)
	require.NoError(t, err)
	require.False(t, ok, "another writer got in while the write hold is valid")
	require.NoError(t, w0.Err())
}
