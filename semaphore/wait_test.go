package semaphore_test

import (
	"context"
	"math/rand/v2"
	"slices"
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
	"github.com/goredisson/redisson/semaphore"
)

// ignoreRedis are the goroutines go-redis keeps until its clients close at
// cleanup.
var ignoreRedis = []string{
	"github.com/redis/go-redis/v9/internal/pool.(*ConnPool).reaper",
	"internal/poll.runtime_pollWait",
}

// work stands for a holder's job: up to half a millisecond, so that holders
// overlap and the gauge can see them.
func work() { time.Sleep(time.Duration(rand.IntN(500)) * time.Microsecond) }

// TestCancelledWaitsLeaveNothing: 1000 waits cancelled by their contexts
// leave no subscription and no goroutine, and lose or create no permit.
func TestCancelledWaitsLeaveNothing(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	ctx := context.Background()
	before := leakcheck.Current()
	c := redissontest.ClientAt(t, srv.Addr())
	s := c.Semaphore("busy")
	ok, err := s.TrySetPermits(ctx, 1)
	require.NoError(t, err)
	require.True(t, ok)

	const waiters = 1000
	wctx, cancel := context.WithCancel(ctx)
	errs := make(chan error, waiters)
	var wg sync.WaitGroup
	for range waiters {
		wg.Go(func() { errs <- s.Acquire(wctx, 2) })
	}
	redistest.Eventually(t, 20*time.Second, "all waiters subscribed", func() bool { return c.Stats().PubSub.Waiters == waiters })
	require.Equal(t, int64(1), redistest.NumSub(t, raw, keys.SemaphoreChannel("busy")), "one subscription serves every waiter")
	cancel()
	wg.Wait()
	close(errs)
	for err := range errs {
		require.ErrorIs(t, err, context.Canceled)
	}
	redistest.Eventually(t, 5*time.Second, "the channel is unsubscribed", func() bool {
		return redistest.NumSub(t, raw, keys.SemaphoreChannel("busy")) == 0
	})
	require.Equal(t, 0, c.Stats().PubSub.Channels)
	require.Equal(t, "1", rawValue(t, raw, "busy"))

	require.NoError(t, c.Close())
	leakcheck.Verify(t, before, ignoreRedis...)
}

// TestCancelStorm: acquires cancelled at random moments, also while their
// script is in flight, racing releases on three clients: never more holders
// than permits, and once everything settled the count is what it was, with
// no subscription left.
func TestCancelStorm(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	ctx := context.Background()
	const permits = 2
	clients := []*redisson.Client{redissontest.ClientAt(t, srv.Addr()), redissontest.ClientAt(t, srv.Addr()), redissontest.ClientAt(t, srv.Addr())}
	ok, err := clients[0].Semaphore("storm").TrySetPermits(ctx, permits)
	require.NoError(t, err)
	require.True(t, ok)

	var inFlight, peak, taken, cancelled atomic.Int64
	var wg sync.WaitGroup
	for _, c := range clients {
		s := c.Semaphore("storm")
		for range 16 {
			wg.Go(func() {
				for range 20 {
					actx, cancel := context.WithTimeout(ctx, time.Duration(rand.IntN(60000))*time.Microsecond)
					p, err := s.AcquirePermits(actx, 1)
					cancel()
					if err != nil {
						require.ErrorIs(t, err, context.DeadlineExceeded)
						cancelled.Add(1)
						continue
					}
					n := inFlight.Add(1)
					for {
						old := peak.Load()
						if n <= old || peak.CompareAndSwap(old, n) {
							break
						}
					}
					taken.Add(1)
					work()
					inFlight.Add(-1)
					require.NoError(t, p.Release(ctx))
				}
			})
		}
	}
	wg.Wait()
	t.Logf("taken %d, cancelled %d, peak %d", taken.Load(), cancelled.Load(), peak.Load())
	require.LessOrEqual(t, peak.Load(), int64(permits))
	require.NotZero(t, taken.Load())
	require.NotZero(t, cancelled.Load())
	// Acquires whose callers left mid-script give their permits back in the
	// background.
	redistest.Eventually(t, 10*time.Second, "every permit is back", func() bool { return rawValue(t, raw, "storm") == "2" })
	redistest.Eventually(t, 5*time.Second, "the channel is unsubscribed", func() bool {
		return redistest.NumSub(t, raw, keys.SemaphoreChannel("storm")) == 0
	})
}

// TestNoOverAdmission: 3 clients × 16 goroutines share a semaphore of 4
// permits for 3000 acquisitions (half through Acquire/Release, half through
// Permits): an in-flight gauge never exceeds 4 and all 4 permits are there
// at the end.
func TestNoOverAdmission(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	const permits, workers, total = 4, 16, 3000
	clients := []*redisson.Client{redissontest.ClientAt(t, srv.Addr()), redissontest.ClientAt(t, srv.Addr()), redissontest.ClientAt(t, srv.Addr())}
	ok, err := clients[0].Semaphore("pool").TrySetPermits(ctx, permits)
	require.NoError(t, err)
	require.True(t, ok)

	var inFlight, peak, done atomic.Int64
	var wg sync.WaitGroup
	for ci, c := range clients {
		s := c.Semaphore("pool")
		for w := range workers {
			viaPermits := (ci+w)%2 == 0
			wg.Go(func() {
				for done.Add(1) <= total {
					var p *semaphore.Permits
					var err error
					if viaPermits {
						p, err = s.AcquirePermits(ctx, 1)
					} else {
						err = s.Acquire(ctx, 1)
					}
					require.NoError(t, err)
					n := inFlight.Add(1)
					for {
						old := peak.Load()
						if n <= old || peak.CompareAndSwap(old, n) {
							break
						}
					}
					if n > permits {
						t.Errorf("%d holders of %d permits", n, permits)
					}
					work()
					inFlight.Add(-1)
					if viaPermits {
						require.NoError(t, p.Release(ctx))
					} else {
						require.NoError(t, s.Release(ctx, 1))
					}
				}
			})
		}
	}
	wg.Wait()
	t.Logf("peak %d holders", peak.Load())
	require.LessOrEqual(t, peak.Load(), int64(permits))
	require.Equal(t, "4", rawValue(t, raw, "pool"))
	n, err := clients[1].Semaphore("pool").AvailablePermits(ctx)
	require.NoError(t, err)
	require.Equal(t, permits, n)
}

// TestReleaseWakesWaiters: a release by another client wakes waiting
// acquires, which take exactly the permits released: two of five waiters
// get in with two permits, the other three with three more.
func TestReleaseWakesWaiters(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	waiting := redissontest.ClientAt(t, srv.Addr())
	releaser := redissontest.ClientAt(t, srv.Addr())
	s := waiting.Semaphore("gate")

	got := make(chan error, 5)
	for i := range 5 {
		go func() {
			if i%2 == 0 {
				got <- s.Acquire(ctx, 1)
				return
			}
			ok, err := s.TryAcquire(ctx, 1, semaphore.WithWait(25*time.Second))
			if err == nil && !ok {
				err = context.DeadlineExceeded
			}
			got <- err
		}()
	}
	redistest.Eventually(t, 5*time.Second, "all five wait", func() bool { return waiting.Stats().PubSub.Waiters == 5 })
	require.NoError(t, releaser.Semaphore("gate").Release(ctx, 2))
	for range 2 {
		require.NoError(t, <-got)
	}
	redistest.Eventually(t, 5*time.Second, "three still wait", func() bool { return waiting.Stats().PubSub.Waiters == 3 })
	require.Equal(t, "0", rawValue(t, raw, "gate"))
	require.Empty(t, got, "no third acquire with two permits")

	require.NoError(t, releaser.Semaphore("gate").AddPermits(ctx, 3))
	for range 3 {
		require.NoError(t, <-got)
	}
	require.Equal(t, "0", rawValue(t, raw, "gate"))
	redistest.Eventually(t, 5*time.Second, "the channel is unsubscribed", func() bool {
		return redistest.NumSub(t, raw, keys.SemaphoreChannel("gate")) == 0
	})
}

// TestTryAcquireWaitRunsOut: a bounded wait that sees no permit reports
// false, without error, after about its wait, and leaves no subscription.
func TestTryAcquireWaitRunsOut(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	ctx := context.Background()
	c := redissontest.ClientAt(t, srv.Addr())
	start := time.Now()
	ok, err := c.Semaphore("empty").TryAcquire(ctx, 1, semaphore.WithWait(200*time.Millisecond))
	require.NoError(t, err)
	require.False(t, ok)
	require.GreaterOrEqual(t, time.Since(start), 200*time.Millisecond)
	redistest.Eventually(t, 5*time.Second, "the channel is unsubscribed", func() bool {
		return redistest.NumSub(t, raw, keys.SemaphoreChannel("empty")) == 0
	})
	require.Zero(t, redistest.DBSize(t, raw), "a failed acquire writes nothing")
}

// TestLostMessageFallsBackToRecheck: permits added without a message (a raw
// INCRBY) still reach a waiter, at its periodic re-check.
func TestLostMessageFallsBackToRecheck(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	ctx := context.Background()
	c := redissontest.ClientAt(t, srv.Addr(), redisson.WithWatchdogTimeout(300*time.Millisecond))
	// A first try loads the acquire script, so that each try below is one
	// command.
	ok, err := c.Semaphore("silent").TryAcquire(ctx, 1)
	require.NoError(t, err)
	require.False(t, ok)
	m, err := redistest.StartMonitor(srv.Addr())
	require.NoError(t, err)
	defer m.Close()
	got := make(chan error, 1)
	go func() { got <- c.Semaphore("silent").Acquire(ctx, 1) }()
	// The second try is the one after subscribing: from then on only a
	// message or the re-check wakes the waiter.
	scriptsOn(t, m, "silent", 2)
	start := time.Now()
	require.NoError(t, raw.IncrBy(ctx, "silent", 1).Err())
	select {
	case err := <-got:
		require.NoError(t, err)
		require.GreaterOrEqual(t, time.Since(start), 200*time.Millisecond, "woken without a message")
	case <-time.After(5 * time.Second):
		t.Fatal("the waiter did not re-check")
	}
	require.Equal(t, "0", rawValue(t, raw, "silent"))
}

// TestCloseEndsWaits: closing the client ends waiting acquires with
// ErrClosed and drops their subscription.
func TestCloseEndsWaits(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	c := redissontest.ClientAt(t, srv.Addr())
	got := make(chan error, 1)
	go func() { got <- c.Semaphore("closing").Acquire(context.Background(), 1) }()
	redistest.Eventually(t, 5*time.Second, "the waiter subscribed", func() bool { return c.Stats().PubSub.Waiters == 1 })
	require.NoError(t, c.Close())
	select {
	case err := <-got:
		require.ErrorIs(t, err, redisson.ErrClosed)
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not end the wait")
	}
	redistest.Eventually(t, 5*time.Second, "the subscription is gone", func() bool {
		return redistest.NumSub(t, raw, keys.SemaphoreChannel("closing")) == 0
	})
}

// scriptsOn waits until MONITOR has seen n scripts sent by clients with key
// among their arguments.
func scriptsOn(t *testing.T, m *redistest.Monitor, key string, n int) {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for n > 0 {
		select {
		case line := <-m.Lines():
			l, ok := redistest.ParseMonitorLine(line)
			if ok && l.TopLevel() && (l.Command == "evalsha" || l.Command == "eval") && slices.Contains(l.Args, key) {
				n--
			}
		case <-timeout:
			t.Fatalf("MONITOR did not see %d more scripts on %q", n, key)
		}
	}
}
