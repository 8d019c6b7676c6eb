package rlock_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/faultproxy"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/redissontest"
	"github.com/goredisson/redisson/rlock"
)

// partitionTrials is how many holders are cut off per fault kind.
const partitionTrials = 20

// TestPartitionedHolderKnowsFirst puts a stalling or cutting proxy between a
// holder and Redis, with go-redis' default options (3 s read timeout,
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
	// go-redis defaults on purpose: no ContextTimeoutEnabled, 3 s timeouts.
	rdb := redis.NewClient(&redis.Options{Addr: p.Addr(), MaintNotificationsConfig: redistest.MaintOff()})
	defer rdb.Close()
	holder, err := redisson.New(rdb, redisson.WithWatchdogTimeout(watchdog))
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
	const timeout = 400 * time.Millisecond
	c, err := redisson.New(rdb, redisson.WithTimeout(timeout))
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	ctx := context.Background()
	h, err := c.Lock("stalled").Lock(ctx)
	require.NoError(t, err)

	p.Stall()
	const bound = 300 * time.Millisecond
	slack := 250 * time.Millisecond // scheduling under -race
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
			require.Less(t, took, bound+timeout+slack, "returned %v after its deadline", took-bound)
		})
	}
	start := time.Now()
	err = h.Unlock(ctx)
	took := time.Since(start)
	require.Error(t, err)
	require.Less(t, took, 3*timeout+slack+3*50*time.Millisecond, "unlock took %v", took)
	require.ErrorIs(t, h.Err(), redisson.ErrLockLost, "an unlock without reply ends the hold")
	require.True(t, errors.Is(h.Unlock(ctx), redisson.ErrNotOwner), "a second unlock sends nothing")
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
	c, err := redisson.New(rdb, redisson.WithTimeout(400*time.Millisecond))
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
	require.Less(t, took, bound+400*time.Millisecond+250*time.Millisecond, "returned %v after its deadline", took-bound)
}
