package fairlock_test

import (
	"context"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/redissontest"
)

// TestShortDeadlines: 64 goroutines in two clients call Lock with ctx
// deadlines of 0–3 ms, as request-scoped code does under load. Each waiter
// must count in the queue for no longer than its ctx allows it to wait (the
// time left, as Redisson's tryLock(waitTime) does), so that waiters which
// gave up cannot hold those behind them back: a patient caller in each
// client, queueing behind the storm again and again, gets the lock every
// time within a wait far shorter than a gone waiter's default stale
// interval (the holder's lease plus five minutes) or a lease. Every
// waiter's entry must be gone once it has returned.
//
// How many of the short calls win depends on how fast the machine answers
// (a loaded one answers few within 3 ms), so their count is logged, not
// asserted.
func TestShortDeadlines(t *testing.T) {
	if testing.Short() {
		t.Skip("a load scenario of several seconds")
	}
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	clients := []*redisson.Client{redissontest.ClientAt(t, srv.Addr()), redissontest.ClientAt(t, srv.Addr())}
	const (
		name    = "short"
		workers = 64
		storm   = 4500 * time.Millisecond
		patient = 10 * time.Second
	)
	var (
		short, patientWins atomic.Int64
		wg                 sync.WaitGroup
	)
	end := time.Now().Add(storm)
	for i := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			lock := clients[i%2].FairLock(name)
			for time.Now().Before(end) {
				d := time.Duration(rand.IntN(3001)) * time.Microsecond
				ctx, cancel := context.WithTimeout(context.Background(), d)
				h, err := lock.Lock(ctx)
				cancel()
				if err != nil {
					continue
				}
				short.Add(1)
				require.NoError(t, h.Unlock(context.Background()))
			}
		}()
	}
	for _, c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			lock := c.FairLock(name)
			for time.Now().Before(end) {
				ctx, cancel := context.WithTimeout(context.Background(), patient)
				h, err := lock.Lock(ctx)
				cancel()
				if !assert.NoError(t, err, "a caller ready to wait %v behind the short waiters", patient) {
					return
				}
				patientWins.Add(1)
				require.NoError(t, h.Unlock(context.Background()))
			}
		}()
	}
	wg.Wait()
	t.Logf("%d short-deadline acquisitions, %d patient ones in %v", short.Load(), patientWins.Load(), storm)
	require.GreaterOrEqual(t, patientWins.Load(), int64(len(clients)), "each patient caller got the lock")
	ctx := context.Background()
	// A leave that failed is sent again in the background after a back-off;
	// an entry nobody took out would stay for FairLockWaitTimeout (5 min).
	redistest.Eventually(t, 10*time.Second, "the queue is empty once every waiter has returned", func() bool {
		n, err := raw.LLen(ctx, "redisson_lock_queue:{"+name+"}").Result()
		require.NoError(t, err)
		m, err := raw.ZCard(ctx, "redisson_lock_timeout:{"+name+"}").Result()
		require.NoError(t, err)
		if n+m > 0 {
			t.Logf("queue %d, timeouts %d", n, m)
		}
		return n == 0 && m == 0
	})
}

// TestDeadlineCountsInQueue: a Lock whose ctx has a deadline counts the time
// it has left in the queue's timeout set, not the client's
// FairLockWaitTimeout, so an entry its leave fails to take out turns stale
// when its waiter would have given up anyway.
func TestDeadlineCountsInQueue(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	const name, wait, watchdog = "deadline", 2 * time.Second, 10 * time.Second
	a := redissontest.ClientAt(t, srv.Addr(), redisson.WithWatchdogTimeout(watchdog))
	b := redissontest.ClientAt(t, srv.Addr())
	ctx := context.Background()
	h, err := a.FairLock(name).Lock(ctx)
	require.NoError(t, err)
	before, err := raw.Time(ctx).Result()
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() {
		wctx, cancel := context.WithTimeout(ctx, wait)
		defer cancel()
		_, err := b.FairLock(name).Lock(wctx)
		done <- err
	}()
	var score float64
	redistest.Eventually(t, wait, "the waiter is queued", func() bool {
		zs, err := raw.ZRangeWithScores(ctx, "redisson_lock_timeout:{"+name+"}", 0, -1).Result()
		require.NoError(t, err)
		if len(zs) == 0 {
			return false
		}
		score = zs[0].Score
		return true
	})
	lease, err := raw.PTTL(ctx, name).Result()
	require.NoError(t, err)
	// The entry's deadline is the holder's TTL plus the wait, from when it
	// queued: at most the lock's full lease plus the wait from before.
	bound := float64(before.UnixMilli()) + float64((watchdog + wait).Milliseconds())
	require.LessOrEqual(t, score, bound, "queued until %v after the lock's TTL (%v left)", wait, lease)
	require.ErrorIs(t, <-done, context.DeadlineExceeded)
	require.NoError(t, h.Unlock(ctx))
}
