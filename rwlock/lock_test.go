package rwlock_test

import (
	"context"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/leakcheck"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/keys"
	"github.com/goredisson/redisson/redissontest"
	"github.com/goredisson/redisson/rwlock"
)

// TestUpgradeFailsAtOnce: a read holder asking for the write lock with its
// own owner gets ErrUpgrade from Lock and TryLock with a wait (Redisson
// would wait for itself), false from a single try (as Java), and Redis is
// left as it was. Downgrade works.
func TestUpgradeFailsAtOnce(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	ctx := context.Background()
	c := redissontest.ClientAt(t, srv.Addr())
	rw := c.ReadWriteLock("up")
	r, err := rw.ReadLock().Lock(ctx)
	require.NoError(t, err)
	before := raw.HGetAll(ctx, "up").Val()

	_, err = rw.WriteLock().Lock(ctx, rwlock.WithOwner(r.Owner()))
	require.ErrorIs(t, err, redisson.ErrUpgrade)
	_, _, err = rw.WriteLock().TryLock(ctx, rwlock.WithOwner(r.Owner()), rwlock.WithWait(time.Minute))
	require.ErrorIs(t, err, redisson.ErrUpgrade)
	_, ok, err := rw.WriteLock().TryLock(ctx, rwlock.WithOwner(r.Owner()))
	require.NoError(t, err)
	require.False(t, ok)
	require.Equal(t, before, raw.HGetAll(ctx, "up").Val())
	require.NoError(t, r.Unlock(ctx))

	w, err := rw.WriteLock().Lock(ctx, rwlock.WithOwner(42))
	require.NoError(t, err)
	r, err = rw.ReadLock().Lock(ctx, rwlock.WithOwner(42))
	require.NoError(t, err)
	require.NoError(t, w.Unlock(ctx))
	require.Equal(t, "read", raw.HGet(ctx, "up", "mode").Val())
	require.NoError(t, r.Unlock(ctx))
	require.Zero(t, raw.Exists(ctx, "up").Val())
}

// TestExclusion: 3 clients × 16 goroutines, one in four a writer doing a
// non-atomic GET/SET, the others readers that read twice with a pause and
// must see the same value; a reader gauge must be 0 whenever a writer
// holds. No violation, no lost update.
func TestExclusion(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	ctx := context.Background()
	const clients, goroutines, rounds = 3, 16, 5
	var readers, violations, writes atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, clients*goroutines)
	for i := 0; i < clients; i++ {
		rw := redissontest.ClientAt(t, srv.Addr()).ReadWriteLock("x")
		for g := 0; g < goroutines; g++ {
			writer := g%4 == 0
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range rounds {
					if writer {
						h, err := rw.WriteLock().Lock(ctx)
						if err != nil {
							errs <- err
							return
						}
						if readers.Load() != 0 {
							violations.Add(1)
						}
						n, _ := raw.Get(ctx, "v").Int()
						raw.Set(ctx, "v", n+1, 0)
						writes.Add(1)
						if err := h.Unlock(ctx); err != nil {
							errs <- err
							return
						}
						continue
					}
					h, err := rw.ReadLock().Lock(ctx)
					if err != nil {
						errs <- err
						return
					}
					readers.Add(1)
					a := raw.Get(ctx, "v").Val()
					time.Sleep(time.Millisecond) // the pause a writer would have to break into
					if b := raw.Get(ctx, "v").Val(); a != b {
						violations.Add(1)
					}
					readers.Add(-1)
					if err := h.Unlock(ctx); err != nil {
						errs <- err
						return
					}
				}
			}()
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	require.Zero(t, violations.Load())
	n, err := raw.Get(ctx, "v").Int()
	require.NoError(t, err)
	require.Equal(t, writes.Load(), int64(n))
}

// TestCancelledWaitsLeaveNothing: cancelled read and write waits leave no
// subscription, no goroutine and no key behind.
func TestCancelledWaitsLeaveNothing(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	ctx := context.Background()
	before := leakcheck.Current()
	holder, c := redissontest.ClientAt(t, srv.Addr()), redissontest.ClientAt(t, srv.Addr())
	h, err := holder.ReadWriteLock("busy").WriteLock().Lock(ctx)
	require.NoError(t, err)

	const waiters = 500
	wctx, cancel := context.WithCancel(ctx)
	errs := make(chan error, 2*waiters)
	for i := 0; i < waiters; i++ {
		go func() {
			_, err := c.ReadWriteLock("busy").ReadLock().Lock(wctx)
			errs <- err
		}()
		go func() {
			_, err := c.ReadWriteLock("busy").WriteLock().Lock(wctx)
			errs <- err
		}()
	}
	redistest.Eventually(t, 20*time.Second, "all waiters subscribed", func() bool { return c.Stats().PubSub.Waiters == 2*waiters })
	cancel()
	for i := 0; i < 2*waiters; i++ {
		require.ErrorIs(t, <-errs, context.Canceled)
	}
	redistest.Eventually(t, 5*time.Second, "the channel is unsubscribed", func() bool {
		return redistest.NumSub(t, raw, keys.ReadWriteLockChannel("busy")) == 0
	})
	require.NoError(t, h.Unlock(ctx))
	keys := redistest.Keys(t, raw, "*")
	require.Len(t, keys, 1, "only the unlock latch: %v", keys)
	require.NoError(t, c.Close())
	require.NoError(t, holder.Close())
	leakcheck.Verify(t, before,
		"github.com/redis/go-redis/v9/internal/pool.(*ConnPool).reaper",
		"internal/poll.runtime_pollWait")
}

// TestReadWatchdog: read holds (one re-entrant) outlive three watchdog
// periods: the hash and every hold's timeout key are renewed.
func TestReadWatchdog(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	ctx := context.Background()
	c := redissontest.ClientAt(t, srv.Addr(), redisson.WithWatchdogTimeout(time.Second))
	r := c.ReadWriteLock("wd").ReadLock()
	h1, err := r.Lock(ctx)
	require.NoError(t, err)
	h2, err := r.Lock(ctx, rwlock.WithOwner(h1.Owner()))
	require.NoError(t, err)
	select {
	case <-h1.Done():
		t.Fatalf("hold ended: %v", h1.Err())
	case <-time.After(3 * time.Second): // the property: held past 3 leases (1 s leases: slack for a busy test machine)
	}
	prefix := keys.ReadWriteLockTimeoutPrefix("wd", c.ID()+":"+strconv.FormatInt(h1.Owner(), 10))
	for _, k := range []string{prefix + ":1", prefix + ":2"} {
		require.Positive(t, raw.PTTL(ctx, k).Val(), k)
	}
	require.NoError(t, h2.Unlock(ctx))
	require.NoError(t, h1.Unlock(ctx))
}

// TestBadInput: invalid names and options, and keys of another type.
func TestBadInput(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	ctx := context.Background()
	c := redissontest.ClientAt(t, srv.Addr())
	require.NoError(t, raw.Set(ctx, "str", "x", 0).Err())
	tests := []struct {
		name string
		call func() error
		want error
	}{
		{"empty name", func() error { _, err := c.ReadWriteLock("").ReadLock().Lock(ctx); return err }, redisson.ErrInvalidName},
		{"zero lease", func() error { _, err := c.ReadWriteLock("a").WriteLock().Lock(ctx, rwlock.WithLease(0)); return err }, redisson.ErrInvalidArgument},
		{"negative wait", func() error {
			_, _, err := c.ReadWriteLock("a").ReadLock().TryLock(ctx, rwlock.WithWait(-1))
			return err
		}, redisson.ErrInvalidArgument},
		{"zero owner", func() error { _, err := c.ReadWriteLock("a").ReadLock().Lock(ctx, rwlock.WithOwner(0)); return err }, redisson.ErrInvalidArgument},
		{"string key, read", func() error { _, _, err := c.ReadWriteLock("str").ReadLock().TryLock(ctx); return err }, redisson.ErrWrongType},
		{"string key, write", func() error { _, _, err := c.ReadWriteLock("str").WriteLock().TryLock(ctx); return err }, redisson.ErrWrongType},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { require.ErrorIs(t, tc.call(), tc.want) })
	}
	// An RLock's hash (no mode field) is another kind's: refused, where
	// Redisson's scripts take it as free and leave a hash with two owners.
	h, err := c.Lock("plain").Lock(ctx)
	require.NoError(t, err)
	before := raw.HGetAll(ctx, "plain").Val()
	_, ok, err := c.ReadWriteLock("plain").WriteLock().TryLock(ctx)
	require.ErrorIs(t, err, redisson.ErrWrongType)
	require.False(t, ok)
	require.ErrorContains(t, err, "key holds a lock, not a read-write lock")
	require.Equal(t, before, raw.HGetAll(ctx, "plain").Val(), "the lock's hash is left as it was")
	require.NoError(t, h.Unlock(ctx))
}
