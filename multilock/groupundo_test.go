package multilock_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/multilock"
	"github.com/goredisson/redisson/redissontest"
)

// An owner holding value a re-enters with {a,b} (b is held by another
// client) while Redis does not answer: the acquire's outcome is unknown,
// and undoing it would release {a,b} for the owner, taking away value a,
// which the first hold still holds. The engine must not undo it.
func TestGroupLostReplyKeepsOverlappingHold(t *testing.T) {
	srv := redistest.StartServer(t)
	c1, c2, c3 := redissontest.ClientAt(t, srv.Addr()), redissontest.ClientAt(t, srv.Addr()), redissontest.ClientAt(t, srv.Addr())
	admin := redistest.Client(t, srv)
	ctx := context.Background()
	hy, ok, err := c2.MultiLockGroup("G", "b").TryLock(ctx)
	require.NoError(t, err)
	require.True(t, ok)
	defer hy.Unlock(ctx)
	h0, ok, err := c1.MultiLockGroup("G", "a").TryLock(ctx)
	require.NoError(t, err)
	require.True(t, ok)
	defer h0.Unlock(ctx)

	require.NoError(t, admin.Do(ctx, "client", "pause", 400, "write").Err())
	tctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	_, ok, err = c1.MultiLockGroup("G", "a", "b").TryLock(tctx, multilock.WithOwner(h0.Owner()))
	cancel()
	require.False(t, ok)
	require.Error(t, err)
	// Wait for the pause to end: the writes queued during it (the acquire,
	// an undo) run first.
	redistest.Eventually(t, 5*time.Second, "the pause ended", func() bool {
		return admin.Set(ctx, "probe", 1, 0).Err() == nil
	})
	require.NoError(t, h0.Err())
	h3, ok, err := c3.MultiLockGroup("G", "a").TryLock(ctx)
	require.NoError(t, err)
	if ok {
		_ = h3.Unlock(ctx)
	}
	require.False(t, ok, "two owners of value a")
}
