package integration

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/latch"
	"github.com/goredisson/redisson/ratelimit"
	"github.com/goredisson/redisson/redissontest"
)

// TestServerRestart: redis-server restarts without persistence while a
// client holds and another waits. Nothing hangs: the holder is told (its
// key is gone), the waiter gets the object (objects with counts, which the
// restart lost, once they are set up again), and the holder's client works
// afterwards.
func TestServerRestart(t *testing.T) {
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) { restartCase(t, k) })
	}
	t.Run("CountDownLatch", restartLatch)
	t.Run("RateLimiter", restartRateLimiter)
}

func restartCase(t *testing.T, k kind) {
	const watchdog = time.Second
	e := newEnv(t)
	ctx := context.Background()
	holderC := redissontest.ClientAt(t, e.srv.Addr(), redisson.WithWatchdogTimeout(watchdog))
	waiterC := redissontest.ClientAt(t, e.srv.Addr())
	name := "restart"
	wk := k
	if k.waiter != "" {
		wk, _ = kindByName(k.waiter)
	}
	require.NoError(t, k.setup(ctx, holderC, name, 1))
	h, err := k.acquire(ctx, holderC, name, 0, redisson.NewOwnerID())
	require.NoError(t, err)
	var lostAt chan time.Time
	if d := h.done(); d != nil {
		lostAt = make(chan time.Time, 1)
		go func() {
			<-d
			lostAt <- time.Now()
		}()
	}
	type result struct {
		at  time.Time
		h   hold
		err error
	}
	got := make(chan result, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		h, err := wk.acquire(ctx, waiterC, name, 0, redisson.NewOwnerID())
		got <- result{time.Now(), h, err}
	}()
	redistest.Eventually(t, 10*time.Second, "the waiter waits, subscribed", waiting(t, wk, e.raw, waiterC))

	start := time.Now()
	require.NoError(t, e.srv.Restart(ctx))
	figure := ""
	if k.role == "p" {
		// The permits were lost with the data set: the waiter waits until
		// they are set again.
		require.NoError(t, k.setup(ctx, holderC, name, 1))
		figure = "permits lost with the data; set again at once; "
	}
	var r result
	select {
	case r = <-got:
	case <-time.After(time.Minute):
		t.Fatal("the waiter still waits a minute after the restart")
	}
	if r.err != nil {
		// A wait may end with an error (its retry met the connection the
		// restart closed); it must say so, not run into its deadline.
		require.NotErrorIs(t, r.err, context.DeadlineExceeded)
		figure += fmt.Sprintf("waiter's wait ended %d ms after the restart with %q", r.at.Sub(start).Milliseconds(), errText(r.err))
	} else {
		figure += fmt.Sprintf("waiter acquired %d ms after the restart", r.at.Sub(start).Milliseconds())
	}
	if lostAt != nil {
		var lost time.Time
		select {
		case lost = <-lostAt:
		case <-time.After(30 * time.Second):
			t.Fatal("the holder was not told within 30 s of the restart")
		}
		figure += fmt.Sprintf(", holder told %d ms after it (watchdog %v)", lost.Sub(start).Milliseconds(), watchdog)
		if lost.After(r.at) {
			figure += fmt.Sprintf(": %d ms of two holders, the lock's data being lost", lost.Sub(r.at).Milliseconds())
		}
	} else {
		// The holder's permit went with the data; its release after the
		// restart is recorded as it is (Redisson's release adds a permit).
		err := h.release(ctx)
		figure += fmt.Sprintf(", the holder's release after it: %s", errText(err))
	}
	if r.err == nil {
		require.NoError(t, r.h.release(ctx))
	}
	if k.role == "p" {
		n, err := holderC.Semaphore(name).AvailablePermits(ctx)
		require.NoError(t, err)
		figure += fmt.Sprintf("; %d permits available afterwards, the semaphore being set to 1 after the restart", n)
	}
	again, err := k.acquire(ctx, holderC, name, 0, redisson.NewOwnerID())
	require.NoError(t, err, "the holder's client works after the restart")
	require.NoError(t, again.release(ctx))
	record("redis-server restart", k.name, 0, "%s; both clients work afterwards", figure)
}

// restartLatch: a latch waiter across a restart returns (the latch's
// count went with the data: an absent latch is open, as in Redisson).
func restartLatch(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	c := redissontest.ClientAt(t, e.srv.Addr())
	ok, err := c.CountDownLatch("l").TrySetCount(ctx, 1)
	require.NoError(t, err)
	require.True(t, ok)
	type result struct {
		ok  bool
		err error
		at  time.Time
	}
	got := make(chan result, 1)
	go func() {
		ok, err := c.CountDownLatch("l").Await(ctx, latch.WithTimeout(time.Minute))
		got <- result{ok, err, time.Now()}
	}()
	redistest.Eventually(t, 10*time.Second, "the waiter waits, subscribed", func() bool { return subscriptions(t, e.raw) == 1 })
	start := time.Now()
	require.NoError(t, e.srv.Restart(ctx))
	var r result
	select {
	case r = <-got:
	case <-time.After(time.Minute):
		t.Fatal("the latch waiter still waits a minute after the restart")
	}
	require.NoError(t, r.err)
	require.True(t, r.ok)
	record("redis-server restart", "CountDownLatch", 0,
		"waiter returned true %d ms after the restart without a count down (the count was lost; an absent latch is open, as in Redisson)",
		r.at.Sub(start).Milliseconds())
	ok, err = c.CountDownLatch("l").TrySetCount(ctx, 1)
	require.NoError(t, err)
	require.True(t, ok, "the latch can be armed again")
}

// restartRateLimiter: the limiter's config went with the data: acquiring
// fails with ErrNotInitialized until it is set again.
func restartRateLimiter(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	c := redissontest.ClientAt(t, e.srv.Addr())
	l := c.RateLimiter("r")
	ok, err := l.TrySetRate(ctx, ratelimit.Overall, 1, time.Minute)
	require.NoError(t, err)
	require.True(t, ok)
	require.NoError(t, l.Acquire(ctx, 1))
	start := time.Now()
	require.NoError(t, e.srv.Restart(ctx))
	var afterErr error
	redistest.Eventually(t, 30*time.Second, "the limiter answers", func() bool {
		_, afterErr = l.TryAcquire(ctx, 1)
		return errors.Is(afterErr, ratelimit.ErrNotInitialized)
	})
	answered := time.Since(start)
	ok, err = l.TrySetRate(ctx, ratelimit.Overall, 1, time.Minute)
	require.NoError(t, err)
	require.True(t, ok)
	ok, err = l.TryAcquire(ctx, 1)
	require.NoError(t, err)
	require.True(t, ok, "the window was lost with the data: a permit is free again")
	record("redis-server restart", "RateLimiter", 0,
		"acquire fails with %q %d ms after the restart (the config was lost) until it is set again; the window restarts empty",
		afterErr.Error(), answered.Milliseconds())
}
