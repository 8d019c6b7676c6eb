package fairlock_test

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/redissontest"
)

// TestLateTryLeavesTheQueue: a waiter's try is held back on its way (600
// ms) past go-redis' ReadTimeout (200 ms) and the waiter gives up at 400
// ms and leaves the queue; the try then lands and queues the waiter that
// left, which would hold everyone behind it back for the fair lock's wait
// timeout (5 min). The client looks again, its Timeout after the wait
// ended, and takes the entry out.
func TestLateTryLeavesTheQueue(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	ctx := context.Background()
	a := redissontest.ClientAt(t, srv.Addr())
	held, err := a.FairLock("late").Lock(ctx)
	require.NoError(t, err)

	lag := redistest.NewLag(600 * time.Millisecond)
	rdb := redistest.Client(t, srv, func(o *redis.Options) {
		o.ReadTimeout = 200 * time.Millisecond
		o.MaxRetries = -1
	})
	rdb.AddHook(lag)
	b, err := redisson.New(rdb, redisson.WithTimeout(time.Second))
	require.NoError(t, err)
	t.Cleanup(func() { _ = b.Close() })
	// Load the scripts: a NOSCRIPT answer would be sent again with EVAL.
	h, err := b.FairLock("warm").Lock(ctx)
	require.NoError(t, err)
	require.NoError(t, h.Unlock(ctx))

	lag.Arm(b.ID() + ":")
	wctx, cancel := context.WithTimeout(ctx, 400*time.Millisecond)
	_, err = b.FairLock("late").Lock(wctx)
	cancel()
	require.Error(t, err)
	select {
	case <-lag.Landed():
	case <-time.After(5 * time.Second):
		t.Fatal("the held-back try was never written")
	}
	redistest.Eventually(t, 10*time.Second, "no queue entry is left", func() bool {
		n, err := raw.LLen(ctx, "redisson_lock_queue:{late}").Result()
		require.NoError(t, err)
		m, err := raw.ZCard(ctx, "redisson_lock_timeout:{late}").Result()
		require.NoError(t, err)
		return n == 0 && m == 0
	})
	require.NoError(t, held.Unlock(ctx))
	next, ok, err := redissontest.ClientAt(t, srv.Addr()).FairLock("late").TryLock(ctx)
	require.NoError(t, err)
	require.True(t, ok, "the lock is free for the next client at once")
	require.NoError(t, next.Unlock(ctx))
}
