package fairlock_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
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

// failLeaves fails the next n leave scripts of a fair lock (the
// acquire-failed script: its keys are the queue and the timeout set) with
// a deadline error before they are sent, as a pool too busy to give a
// connection within the client's timeout does; it counts every leave.
type failLeaves struct {
	mu     sync.Mutex
	n      int
	leaves int
}

func (f *failLeaves) DialHook(next redis.DialHook) redis.DialHook { return next }

func (f *failLeaves) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

func (f *failLeaves) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		args := cmd.Args()
		if (cmd.Name() == "evalsha" || cmd.Name() == "eval") && len(args) == 7 && fmt.Sprint(args[2]) == "2" &&
			strings.HasPrefix(fmt.Sprint(args[3]), "redisson_lock_queue:") {
			f.mu.Lock()
			f.leaves++
			fail := f.n > 0
			if fail {
				f.n--
			}
			f.mu.Unlock()
			if fail {
				cmd.SetErr(context.DeadlineExceeded)
				return context.DeadlineExceeded
			}
		}
		return next(ctx, cmd)
	}
}

func (f *failLeaves) arm(n int) {
	f.mu.Lock()
	f.n, f.leaves = n, 0
	f.mu.Unlock()
}

func (f *failLeaves) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.leaves
}

// TestLeaveRetried: a cancelled waiter whose leave gets no answer for a
// reason that may pass (here twice) sends it again, as an undo is, and the
// cancelled Lock returns with its entry gone; before, the entry stayed
// until it turned stale (FairLockWaitTimeout, five minutes), holding every
// later waiter back.
func TestLeaveRetried(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	ctx := context.Background()
	held, err := redissontest.ClientAt(t, srv.Addr()).FairLock("leave").Lock(ctx)
	require.NoError(t, err)

	hook := &failLeaves{}
	rdb := redistest.Client(t, srv)
	rdb.AddHook(hook)
	b, err := redisson.New(rdb, redisson.WithRetry(redisson.RetryOptions{Delay: 20 * time.Millisecond}))
	require.NoError(t, err)
	t.Cleanup(func() { _ = b.Close() })

	wctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		_, err := b.FairLock("leave").Lock(wctx)
		done <- err
	}()
	redistest.Eventually(t, 10*time.Second, "the waiter is queued", func() bool {
		return raw.LLen(ctx, "redisson_lock_queue:{leave}").Val() == 1
	})
	hook.arm(2)
	cancel()
	require.ErrorIs(t, <-done, context.Canceled)
	n, err := raw.LLen(ctx, "redisson_lock_queue:{leave}").Result()
	require.NoError(t, err)
	m, err := raw.ZCard(ctx, "redisson_lock_timeout:{leave}").Result()
	require.NoError(t, err)
	require.Zero(t, n+m, "the entry is gone when the cancelled Lock returns")
	// A third send at least: the first may meet NOSCRIPT and go again as
	// EVAL.
	require.GreaterOrEqual(t, hook.count(), 3, "two failed leaves and the one that ran")

	require.NoError(t, held.Unlock(ctx))
	next, ok, err := redissontest.ClientAt(t, srv.Addr()).FairLock("leave").TryLock(ctx)
	require.NoError(t, err)
	require.True(t, ok, "the lock is free for the next client at once")
	require.NoError(t, next.Unlock(ctx))
}
