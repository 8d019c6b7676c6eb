package rlock_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/leakcheck"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/keys"
	"github.com/goredisson/redisson/redissontest"
	"github.com/goredisson/redisson/rlock"
)

// TestCancelledWaitsLeaveNothing: 1000 waits cancelled by their contexts
// leave no subscription, no goroutine and no key behind.
func TestCancelledWaitsLeaveNothing(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	ctx := context.Background()
	before := leakcheck.Current()

	holder := redissontest.ClientAt(t, srv.Addr())
	c := redissontest.ClientAt(t, srv.Addr())
	h, err := holder.Lock("busy").Lock(ctx)
	require.NoError(t, err)

	const waiters = 1000
	wctx, cancel := context.WithCancel(ctx)
	errs := make(chan error, waiters)
	var wg sync.WaitGroup
	for i := 0; i < waiters; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := c.Lock("busy").Lock(wctx)
			errs <- err
		}()
	}
	redistest.Eventually(t, 20*time.Second, "all waiters subscribed", func() bool { return c.Stats().PubSub.Waiters == waiters })
	require.Equal(t, int64(1), redistest.NumSub(t, raw, keys.LockChannel("busy")), "one subscription serves 1000 waiters")
	cancel()
	wg.Wait()
	close(errs)
	for err := range errs {
		require.ErrorIs(t, err, context.Canceled)
	}
	redistest.Eventually(t, 5*time.Second, "the channel is unsubscribed", func() bool {
		return redistest.NumSub(t, raw, keys.LockChannel("busy")) == 0
	})
	require.Equal(t, 0, c.Stats().PubSub.Channels)

	ok, err := holder.Lock("busy").ForceUnlock(ctx)
	require.NoError(t, err)
	require.True(t, ok)
	require.True(t, ended(h))
	require.ErrorIs(t, h.Err(), redisson.ErrLockLost)
	require.Empty(t, redistest.Keys(t, raw, "*"))

	require.NoError(t, c.Close())
	require.NoError(t, holder.Close())
	leakcheck.Verify(t, before,
		// go-redis' pool keeps reaping goroutines until its client closes
		// at cleanup.
		"github.com/redis/go-redis/v9/internal/pool.(*ConnPool).reaper",
		"internal/poll.runtime_pollWait")
}

// TestLostMessageFallsBackToTTL: a release that publishes nothing (a raw DEL)
// still lets the waiter acquire once the holder's TTL has run out.
func TestLostMessageFallsBackToTTL(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	ctx := context.Background()
	holder := redissontest.ClientAt(t, srv.Addr())
	c := redissontest.ClientAt(t, srv.Addr())

	_, err := holder.Lock("silent").Lock(ctx, rlock.WithLease(time.Second))
	require.NoError(t, err)
	got := make(chan error, 1)
	go func() {
		_, err := c.Lock("silent").Lock(ctx)
		got <- err
	}()
	redistest.Eventually(t, 5*time.Second, "the waiter subscribed", func() bool { return c.Stats().PubSub.Waiters == 1 })
	require.NoError(t, raw.Del(ctx, "silent").Err())
	select {
	case err := <-got:
		require.NoError(t, err)
	case <-time.After(5 * time.Second):
		t.Fatal("the waiter did not acquire after the TTL ran out")
	}
	held, err := c.Lock("silent").IsLocked(ctx)
	require.NoError(t, err)
	require.True(t, held)
}

// TestResubscribeAfterPubSubKill: the hub's connection is killed during a
// wait; it resubscribes and the next unlock wakes the waiter promptly, long
// before the 30 s TTL fallback.
func TestResubscribeAfterPubSubKill(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	ctx := context.Background()
	holder := redissontest.ClientAt(t, srv.Addr())
	c := redissontest.ClientAt(t, srv.Addr())
	channel := keys.LockChannel("killed")

	h, err := holder.Lock("killed").Lock(ctx)
	require.NoError(t, err)
	got := make(chan error, 1)
	go func() {
		_, err := c.Lock("killed").Lock(ctx)
		got <- err
	}()
	redistest.Eventually(t, 5*time.Second, "the waiter subscribed", func() bool { return redistest.NumSub(t, raw, channel) == 1 })

	killed, err := raw.ClientKillByFilter(ctx, "TYPE", "pubsub").Result()
	require.NoError(t, err)
	require.Equal(t, int64(1), killed)
	redistest.Eventually(t, 10*time.Second, "the hub resubscribed", func() bool { return redistest.NumSub(t, raw, channel) == 1 })

	released := time.Now()
	require.NoError(t, h.Unlock(ctx))
	select {
	case err := <-got:
		require.NoError(t, err)
		t.Logf("acquired %v after the unlock", time.Since(released))
	case <-time.After(3 * time.Second):
		t.Fatal("the waiter was not woken after the reconnect")
	}
}

// TestCancelledWaiterPassesWakeUp: a waiter woken by an unlock that then
// leaves without the lock hands the wake-up to the next waiter.
func TestCancelledWaiterPassesWakeUp(t *testing.T) {
	srv := redistest.StartServer(t)
	ctx := context.Background()
	holder := redissontest.ClientAt(t, srv.Addr())
	c := redissontest.ClientAt(t, srv.Addr())
	h, err := holder.Lock("relay").Lock(ctx)
	require.NoError(t, err)

	results := make(chan error, 2)
	for i := 0; i < 2; i++ {
		go func() {
			_, err := c.Lock("relay").Lock(ctx)
			results <- err
		}()
	}
	redistest.Eventually(t, 5*time.Second, "both waiters subscribed", func() bool { return c.Stats().PubSub.Waiters == 2 })
	require.NoError(t, h.Unlock(ctx))
	select {
	case err := <-results:
		require.NoError(t, err)
	case <-time.After(5 * time.Second):
		t.Fatal("no waiter acquired")
	}
}

// TestHandOffAcrossClients: waiters of two clients all get the lock in turn
// through unlock messages alone (the holders use the watchdog, so the TTL
// fallback would take 30 s).
func TestHandOffAcrossClients(t *testing.T) {
	srv := redistest.StartServer(t)
	ctx := context.Background()
	a := redissontest.ClientAt(t, srv.Addr())
	b := redissontest.ClientAt(t, srv.Addr())
	h, err := a.Lock("relay2").Lock(ctx)
	require.NoError(t, err)

	const per = 5
	done := make(chan error, 2*per)
	for _, c := range []*redisson.Client{a, b} {
		for i := 0; i < per; i++ {
			go func() {
				wh, err := c.Lock("relay2").Lock(ctx)
				if err == nil {
					err = wh.Unlock(ctx)
				}
				done <- err
			}()
		}
	}
	redistest.Eventually(t, 5*time.Second, "all waiters subscribed", func() bool {
		return a.Stats().PubSub.Waiters == per && b.Stats().PubSub.Waiters == per
	})
	require.NoError(t, h.Unlock(ctx))
	deadline := time.After(10 * time.Second)
	for i := 0; i < 2*per; i++ {
		select {
		case err := <-done:
			require.NoError(t, err)
		case <-deadline:
			t.Fatalf("only %d of %d waiters got the lock", i, 2*per)
		}
	}
}

func TestDeadlineBoundsLock(t *testing.T) {
	srv := redistest.StartServer(t)
	ctx := context.Background()
	c := redissontest.ClientAt(t, srv.Addr())
	h, err := c.Lock("deadline").Lock(ctx)
	require.NoError(t, err)
	dctx, cancel := context.WithTimeout(ctx, 150*time.Millisecond)
	defer cancel()
	_, err = c.Lock("deadline").Lock(dctx)
	require.True(t, errors.Is(err, context.DeadlineExceeded), "err = %v", err)
	require.NoError(t, h.Unlock(ctx))
}

// TestHandOffPingPong: one client, a holder and a waiter that arrives while
// the holder unlocks, 1000 times. A waiter that comes between the unlock's
// look at the local queue and its release must still be woken (regression:
// it slept for the 30 s watchdog TTL).
func TestHandOffPingPong(t *testing.T) {
	srv := redistest.StartServer(t)
	c := redissontest.ClientAt(t, srv.Addr())
	ctx := context.Background()
	lock := c.Lock("pingpong")
	for i := 0; i < 1000; i++ {
		lctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		h, err := lock.Lock(lctx)
		cancel()
		require.NoError(t, err, "iteration %d: the holder was not woken", i)
		got := make(chan error, 1)
		go func() {
			wctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			defer cancel()
			wh, err := lock.Lock(wctx)
			if err == nil {
				err = wh.Unlock(ctx)
			}
			got <- err
		}()
		redistest.Eventually(t, 5*time.Second, "the waiter queued", func() bool { return c.Stats().PubSub.Waiters > 0 })
		require.NoError(t, h.Unlock(ctx))
		require.NoError(t, <-got, "iteration %d", i)
	}
}
