package integration

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/faultproxy"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/redissontest"
)

// proxiedClient returns a Client whose traffic goes through p.
func proxiedClient(t *testing.T, p *faultproxy.Proxy, opts ...redisson.Option) *redisson.Client {
	t.Helper()
	rdb := redis.NewClient(&redis.Options{Addr: p.Addr(), MaintNotificationsConfig: redistest.MaintOff()})
	t.Cleanup(func() { _ = rdb.Close() })
	c, err := redisson.New(rdb, opts...)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// TestNetworkFault: a holder and a waiter reach Redis through a fault proxy
// that stalls (bytes stop, connections stay) or cuts (connections reset);
// another client waits directly. The cut-off holder is told it lost the
// object before the direct client gets it, the cut-off waiter's wait ends
// with an error, and after the fault everything works again.
func TestNetworkFault(t *testing.T) {
	for _, fault := range []string{"stall", "cut"} {
		for _, k := range kinds {
			if !k.lease || !full() && k.name != "RLock" {
				continue
			}
			t.Run(fault+"/"+k.name, func(t *testing.T) { networkFaultCase(t, k, fault) })
		}
	}
}

func networkFaultCase(t *testing.T, k kind, fault string) {
	const lease = time.Second
	e := newEnv(t)
	ctx := context.Background()
	p, err := faultproxy.New(e.srv.Addr())
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close() })
	// A fair lock's waiter cut off in the queue holds the others back
	// until it is stale: keep that short (every client must agree).
	stale := redisson.WithFairLockWaitTimeout(2 * time.Second)
	// The holder's signal is timed by this process's timers, the other
	// client's acquisition by Redis' expiry: the margin between them must
	// cover how late a loaded machine runs the holder's timer. With the
	// default margin a 1 s lease leaves about 20 ms for that, so the holder
	// gets the margin the default 30 s lease has (about 300 ms): a
	// violation then means two holders, not a slow goroutine.
	holderC := proxiedClient(t, p, redisson.WithWatchdogTimeout(lease), redisson.WithLeaseMargin(300*time.Millisecond), stale)
	waiterC := proxiedClient(t, p, stale)
	direct := redissontest.ClientAt(t, e.srv.Addr(), stale)
	name := "netfault"
	wk := k
	if k.waiter != "" {
		wk, _ = kindByName(k.waiter)
	}
	require.NoError(t, k.setup(ctx, holderC, name, 1))
	holdLease := time.Duration(0) // the watchdog's
	if k.role == "p" {
		holdLease = lease
	}
	h, err := k.acquire(ctx, holderC, name, holdLease, redisson.NewOwnerID())
	require.NoError(t, err)

	type result struct {
		at  time.Time
		h   hold
		err error
	}
	// The cut-off waiter's context ends after 20 s: a multi-lock keeps
	// retrying its members until then (as Redisson's lock() does), where
	// a single object's wait ends with the network error.
	wait := func(c *redisson.Client, k kind, within time.Duration) chan result {
		got := make(chan result, 1)
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), within)
			defer cancel()
			h, err := k.acquire(ctx, c, name, 0, redisson.NewOwnerID())
			got <- result{time.Now(), h, err}
		}()
		return got
	}
	directGot := wait(direct, wk, time.Minute)
	waiterGot := wait(waiterC, wk, 20*time.Second)
	redistest.Eventually(t, 10*time.Second, "both wait, subscribed", waiting(t, wk, e.raw, direct, waiterC))

	// The loss signal's time is taken by a goroutine of its own, as the
	// other client's acquisition is.
	var lostAt chan time.Time
	if d := h.done(); d != nil {
		lostAt = make(chan time.Time, 1)
		go func() {
			<-d
			lostAt <- time.Now()
		}()
	}
	start := time.Now()
	if fault == "stall" {
		p.Stall()
	} else {
		p.Cut()
	}
	var lost time.Time
	if lostAt != nil {
		select {
		case lost = <-lostAt:
		case <-time.After(30 * time.Second):
			t.Fatal("the cut-off holder was not told within 30 s")
		}
	}
	var other result
	select {
	case other = <-directGot:
	case <-time.After(30 * time.Second):
		t.Fatal("the direct waiter did not acquire within 30 s")
	}
	require.NoError(t, other.err)
	var cutWaiter result
	select {
	case cutWaiter = <-waiterGot:
	case <-time.After(time.Minute):
		t.Fatal("the cut-off waiter's wait did not end within a minute")
	}
	if cutWaiter.err == nil {
		_ = cutWaiter.h.release(ctx)
	}
	violations := 0
	figure := ""
	if !lost.IsZero() {
		if !lost.Before(other.at) {
			violations++
		}
		figure = fmt.Sprintf("holder told %d ms after the fault, %d ms before the other client acquired", lost.Sub(start).Milliseconds(), other.at.Sub(lost).Milliseconds())
	} else {
		figure = fmt.Sprintf("the other client acquired %d ms after the fault (lease %v, no loss signal for permits)", other.at.Sub(start).Milliseconds(), lease)
	}
	if cutWaiter.err == nil {
		violations++
	}
	p.Resume()
	recoverStart := time.Now()
	require.NoError(t, other.h.release(ctx))
	var again hold
	redistest.Eventually(t, 30*time.Second, "the cut-off client acquires again", func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		var err error
		again, err = k.acquire(ctx, holderC, name, holdLease, redisson.NewOwnerID())
		return err == nil
	})
	recovered := time.Since(recoverStart)
	require.NoError(t, again.release(ctx))
	record("proxy "+fault, k.name, violations, "%s; cut-off waiter ended after %d ms with %q; acquired again %d ms after the fault ended",
		figure, cutWaiter.at.Sub(start).Milliseconds(), errText(cutWaiter.err), recovered.Milliseconds())
	require.Error(t, cutWaiter.err, "the cut-off waiter acquired")
	if !lost.IsZero() {
		require.True(t, lost.Before(other.at), "the holder was told %v after the other client acquired", lost.Sub(other.at))
	}
}

// subscriptions counts the server's channel subscriptions.
func subscriptions(t *testing.T, raw *redis.Client) int64 {
	t.Helper()
	ctx := context.Background()
	chans, err := raw.PubSubChannels(ctx, "*").Result()
	require.NoError(t, err)
	if len(chans) == 0 {
		return 0
	}
	m, err := raw.PubSubNumSub(ctx, chans...).Result()
	require.NoError(t, err)
	var n int64
	for _, v := range m {
		n += v
	}
	return n
}

func errText(err error) string {
	if err == nil {
		return "no error"
	}
	s := err.Error()
	if len(s) > 120 {
		s = s[:120] + "…"
	}
	return s
}
