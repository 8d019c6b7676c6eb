package engine

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/internal/hub"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/observe"
)

// TestPassedWaiterThatLeftReleases: a waiter whose context ends while a
// release passes it the hold (the release picked it, then its caller gave
// up) finds the hold registered as its own and releases it as its holder
// would. Whichever way each round goes (the waiter took the hold, or left),
// nothing is held afterwards, here or in Redis. An observer sees the end
// of every hold that was acquired, and of no other: a hold passed to a
// waiter that left ends unreported, as its acquisition reported failure.
func TestPassedWaiterThatLeftReleases(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	var ends atomic.Int64
	rt := core.New(core.Config{
		Redis: redistest.Client(t, srv), ID: "cid", WatchdogTimeout: 30 * time.Second, Timeout: 3 * time.Second,
		Observer: &observe.Observer{HoldEnd: func(context.Context, observe.HoldEnd) { ends.Add(1) }},
	})
	t.Cleanup(rt.Close)
	e := New(rt)
	const name = "passleft"
	channel := "enginetest_channel:{" + name + "}"
	l := e.Lock(Config{
		Kind: "lock", Name: name, Channel: channel, Policy: hub.LockPolicy,
		Renew: PlainRenewal{RT: rt}, HandOff: true, PassOn: true,
		Scripts: &testScripts{rt: rt, name: name, channel: channel},
	})
	ctx := context.Background()
	left, acquired := 0, int64(0)
	for round := range 40 {
		var first Hold
		ok, err := l.Acquire(ctx, &first, Request{Wait: true})
		require.NoError(t, err)
		require.True(t, ok)
		acquired++
		wctx, cancel := context.WithCancel(ctx)
		type result struct {
			ok  bool
			err error
		}
		res := make(chan result, 1)
		var next Hold
		go func() {
			ok, err := l.Acquire(wctx, &next, Request{Wait: true})
			res <- result{ok, err}
		}()
		redistest.Eventually(t, 5*time.Second, "the waiter parked", func() bool {
			ref, ok := e.queues.peek(l.queueKey)
			if !ok {
				return false
			}
			defer ref.release()
			return ref.value().HandOffReady(l.undoPending)
		})
		passed := false
		e.beforePass = func() { passed = true; cancel() }
		require.NoError(t, first.Unlock(ctx))
		e.beforePass = nil
		require.True(t, passed, "round %d: the release did not pass the hold on", round)
		r := <-res
		if r.ok {
			acquired++
			require.NoError(t, next.Err())
			require.NoError(t, next.Unlock(ctx))
		} else {
			left++
			require.ErrorIs(t, r.err, context.Canceled)
			require.Error(t, next.Err(), "the hold of a waiter that left still lasts")
		}
		require.Equal(t, int64(0), raw.Exists(ctx, name).Val(), "round %d", round)
		require.Zero(t, rt.Holds().HoldCount(), "round %d", round)
		require.Equal(t, acquired, ends.Load(), "round %d: hold ends reported, against holds acquired", round)
	}
	require.NotZero(t, left, "no waiter left while its hold was passed on")
}
