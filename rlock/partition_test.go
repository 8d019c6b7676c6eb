package rlock_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/faultproxy"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/keys"
	"github.com/goredisson/redisson/redissontest"
	"github.com/goredisson/redisson/rlock"
)

// partitionTrials is how many holders are cut off per fault kind.
const partitionTrials = 20

// TestPartitionedHolderKnowsFirst puts a stalling or cutting proxy between a
// holder and Redis, with go-redis' default options (5 s read timeout,
// ContextTimeoutEnabled off), while a directly connected client waits for
// the same lock. The holder's lease cannot be renewed; its Done must be
// closed before the other client acquires, in every trial. Trials run a few
// side by side, each on its own lock, proxy and holder client.
func TestPartitionedHolderKnowsFirst(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	contender := redissontest.ClientAt(t, srv.Addr(), redisson.WithWatchdogTimeout(time.Second))
	const watchdog = time.Second
	for _, fault := range []string{"stall", "cut"} {
		t.Run(fault, func(t *testing.T) {
			margins := make([]time.Duration, partitionTrials)
			// A few trials at a time: side by side they save time, but
			// leases that all end at once would measure this machine's
			// scheduler more than the library.
			const batch = 5
			for first := 0; first < partitionTrials; first += batch {
				var wg sync.WaitGroup
				for i := first; i < min(first+batch, partitionTrials); i++ {
					wg.Go(func() {
						margins[i] = partitionTrial(t, srv, raw, contender, fault, i, watchdog)
					})
				}
				wg.Wait()
			}
			if t.Failed() {
				return
			}
			smallest := margins[0]
			for _, m := range margins {
				smallest = min(smallest, m)
			}
			// The margin is the time between the holder's signal and the
			// other client's acquisition (its reply), by this process's clock.
			t.Logf("%s: %d trials, holder's signal always first; smallest margin %v", fault, partitionTrials, smallest)
			require.Positive(t, smallest)
		})
	}
}

// partitionTrial runs one trial and returns by how much the holder's
// signal came before the other client's acquisition.
func partitionTrial(t *testing.T, srv *redistest.Server, raw *redis.Client, contender *redisson.Client, fault string, i int, watchdog time.Duration) time.Duration {
	ctx := context.Background()
	name := fmt.Sprintf("partition:%s:%d", fault, i)
	p, err := faultproxy.New(srv.Addr())
	require.NoError(t, err)
	defer p.Close()
	// go-redis defaults on purpose: no ContextTimeoutEnabled, 5 s timeouts.
	rdb := redis.NewClient(&redis.Options{Addr: p.Addr(), MaintNotificationsConfig: redistest.MaintOff()})
	defer rdb.Close()
	// The signal is timed by this process's clock and timers, and the
	// other client's acquisition by Redis' expiry: the margin between them
	// must cover how late a loaded machine runs the holder's timer. With the
	// default margin a 1 s lease leaves about 20 ms for that, so the holder
	// gets the margin the default 30 s lease has (about 300 ms); the
	// ordering, not the margin, is what this test is about.
	holder, err := redisson.New(rdb, redisson.WithWatchdogTimeout(watchdog), redisson.WithLeaseMargin(300*time.Millisecond))
	require.NoError(t, err)
	defer holder.Close()

	h, err := holder.Lock(name).Lock(ctx)
	require.NoError(t, err)
	type acq struct {
		h   *rlock.Hold
		at  time.Time
		err error
	}
	got := make(chan acq, 1)
	go func() {
		wctx, cancel := context.WithTimeout(ctx, 10*watchdog)
		defer cancel()
		ch, err := contender.Lock(name).Lock(wctx)
		got <- acq{ch, time.Now(), err}
	}()
	// Fault at a random point of the lease, after zero to two renewals.
	time.Sleep(time.Duration(rand.Int64N(int64(watchdog * 2 / 3))))
	if fault == "stall" {
		p.Stall()
	} else {
		p.Cut()
	}
	var doneAt time.Time
	var a acq
	select {
	case <-h.Done():
		doneAt = time.Now()
		a = <-got
	case a = <-got:
		select {
		case <-h.Done():
			t.Errorf("trial %d: the other client acquired before the holder's signal", i)
		default:
			t.Errorf("trial %d: the other client acquired while the holder's Done was still open", i)
		}
	}
	require.NoError(t, a.err)
	defer a.h.Unlock(ctx)
	require.ErrorIs(t, h.Err(), redisson.ErrLockLost)

	// The holder, back on the network, sends nothing for its lost hold.
	p.Resume()
	require.ErrorIs(t, h.Unlock(ctx), redisson.ErrLockLost)
	n, err := contender.Lock(name).HoldCount(ctx, a.h.Owner())
	require.NoError(t, err)
	require.Equal(t, 1, n, "the new holder keeps its hold")
	if doneAt.IsZero() {
		return 0
	}
	return a.at.Sub(doneAt)
}

// TestStalledRedisBoundsCalls: with go-redis defaults, no lock call waits
// for a silent Redis past its own bound: an acquire returns at its ctx's
// deadline (plus at most one client Timeout to undo an acquire that may
// have run), an unlock within its attempts' bound, and the hold ends.
func TestStalledRedisBoundsCalls(t *testing.T) {
	srv := redistest.StartServer(t)
	p, err := faultproxy.New(srv.Addr())
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close() })
	rdb := redis.NewClient(&redis.Options{Addr: p.Addr(), MaintNotificationsConfig: redistest.MaintOff()})
	t.Cleanup(func() { _ = rdb.Close() })
	unlocks := &countSent{arg: keys.LockChannel("stalled")} // only the unlock script names the channel
	rdb.AddHook(unlocks)
	const timeout = 400 * time.Millisecond
	c, err := redisson.New(rdb, redisson.WithTimeout(timeout))
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	ctx := context.Background()
	h, err := c.Lock("stalled").Lock(ctx)
	require.NoError(t, err)

	p.Stall()
	const bound = 300 * time.Millisecond
	// What the library bounds, go-redis would end only at its ReadTimeout:
	// a call that returns before it was ended by the library. The expected
	// figure (the deadline plus one Timeout, or three attempts of one
	// Timeout each for the unlock) is far below it; the rest is left to a
	// loaded machine's scheduling.
	readTimeout := rdb.Options().ReadTimeout
	require.Greater(t, readTimeout, 3*timeout, "go-redis' default ReadTimeout")
	for _, tc := range []struct {
		name string
		call func(ctx context.Context) error
	}{
		{"lock", func(ctx context.Context) error { _, err := c.Lock("other").Lock(ctx); return err }},
		{"try lock", func(ctx context.Context) error {
			_, _, err := c.Lock("other").TryLock(ctx, rlock.WithWait(time.Minute))
			return err
		}},
		{"is locked", func(ctx context.Context) error { _, err := c.Lock("other").IsLocked(ctx); return err }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cctx, cancel := context.WithTimeout(ctx, bound)
			defer cancel()
			start := time.Now()
			err := tc.call(cctx)
			took := time.Since(start)
			require.ErrorIs(t, err, context.DeadlineExceeded)
			require.Less(t, took, readTimeout, "returned %v after its deadline (bound %v, Timeout %v)", took-bound, bound, timeout)
		})
	}
	start := time.Now()
	err = h.Unlock(ctx)
	took := time.Since(start)
	require.Error(t, err)
	require.Equal(t, int32(3), unlocks.n.Load(), "the unlock's attempts")
	require.Less(t, took, readTimeout, "unlock took %v (3 attempts of Timeout %v)", took, timeout)
	require.ErrorIs(t, h.Err(), redisson.ErrLockLost, "an unlock without reply ends the hold")
	require.True(t, errors.Is(h.Unlock(ctx), redisson.ErrNotOwner), "a second unlock sends nothing")
}

// countSent is a go-redis hook that counts the commands sent with arg
// among their arguments.
type countSent struct {
	arg string
	n   atomic.Int32
}

func (h *countSent) count(cmd redis.Cmder) {
	for _, a := range cmd.Args() {
		if s, ok := a.(string); ok && s == h.arg {
			h.n.Add(1)
			return
		}
	}
}

func (h *countSent) DialHook(next redis.DialHook) redis.DialHook { return next }
func (h *countSent) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		h.count(cmd)
		return next(ctx, cmd)
	}
}
func (h *countSent) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		for _, c := range cmds {
			h.count(c)
		}
		return next(ctx, cmds)
	}
}

// TestStalledRedisBoundsCallsWithContextTimeouts: with ContextTimeoutEnabled
// go-redis ends a call at its context's deadline itself (the library then
// sends it directly); the bound holds the same.
func TestStalledRedisBoundsCallsWithContextTimeouts(t *testing.T) {
	srv := redistest.StartServer(t)
	p, err := faultproxy.New(srv.Addr())
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close() })
	rdb := redis.NewClient(&redis.Options{Addr: p.Addr(), ContextTimeoutEnabled: true, MaintNotificationsConfig: redistest.MaintOff()})
	t.Cleanup(func() { _ = rdb.Close() })
	const timeout = 400 * time.Millisecond
	c, err := redisson.New(rdb, redisson.WithTimeout(timeout))
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	ctx := context.Background()
	_, err = c.Lock("warm").IsLocked(ctx)
	require.NoError(t, err)
	p.Stall()
	const bound = 300 * time.Millisecond
	cctx, cancel := context.WithTimeout(ctx, bound)
	defer cancel()
	start := time.Now()
	_, err = c.Lock("other").Lock(cctx)
	took := time.Since(start)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	// As above: the deadline plus one Timeout to undo is expected; a wait
	// for go-redis' ReadTimeout is what must not happen.
	require.Less(t, took, rdb.Options().ReadTimeout, "returned %v after its deadline (bound %v, Timeout %v)", took-bound, bound, timeout)
}
