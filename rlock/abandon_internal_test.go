package rlock

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/internal/renewal"
	"github.com/goredisson/redisson/pubsub"
)

func newTestRuntime(t *testing.T) *core.Runtime {
	srv := redistest.StartServer(t)
	rdb := redistest.Client(t, srv)
	rt := &core.Runtime{Redis: rdb, ID: "cid", WatchdogTimeout: 30 * time.Second, Timeout: 3 * time.Second,
		PublishCommand: "PUBLISH", Sync: &core.ReplicaSync{}}
	rt.Init()
	rt.Hub = pubsub.New(pubsub.Config{Client: rdb})
	rt.Wheel = renewal.New(renewal.Config{Client: rdb, Timeout: rt.Timeout})
	t.Cleanup(func() { rt.Close(); rt.Hub.Close(); rt.Wheel.Close() })
	return rt
}

// TestAbandonedHandOffWakesLocalWaiter: a waiter that was handed the lock
// but gives up (here: its Subscribe had failed, so it has no subscription
// to pass a wake-up on) releases the lock for real. Its unlock message may
// arrive while the hand-off still counts as pending, when every local
// waiter is passed over; the waiter that is left must still be woken at
// once, not after the watchdog timeout.
func TestAbandonedHandOffWakesLocalWaiter(t *testing.T) {
	rt := newTestRuntime(t)
	l := New(rt, "abandoned")
	ctx := context.Background()
	for round := range 5 {
		h, err := l.Lock(core.WithOwnerID(ctx, 1))
		require.NoError(t, err)

		ref := rt.Local(l.queueKey, newQueue)
		q := ref.Value().(*queue)
		gone := &waiter{field: core.OwnerField(rt.ID, 3), lease: rt.WatchdogTimeout, state: parked, nudge: make(chan struct{}, 1)}
		q.mu.Lock()
		q.add(gone)
		q.mu.Unlock()

		got := make(chan error, 1)
		wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		go func() {
			hh, err := l.Lock(core.WithOwnerID(wctx, 2))
			if err == nil {
				err = l.Unlock(hh)
			}
			got <- err
		}()
		parkedSecond := func() bool {
			q.mu.Lock()
			defer q.mu.Unlock()
			return len(q.waiters) == 2 && q.waiters[1].state == parked && rt.Hub.Stats().Waiters == 1
		}
		deadline := time.Now().Add(5 * time.Second)
		for !parkedSecond() {
			require.True(t, time.Now().Before(deadline), "round %d: the second waiter never parked", round)
			time.Sleep(time.Millisecond)
		}

		require.NoError(t, l.Unlock(h)) // hands the lock to gone, the oldest
		q.mu.Lock()
		require.Equal(t, handed, gone.state)
		q.streak = maxHandOffStreak // so that gone's release is a real one
		q.mu.Unlock()
		_, _, err = l.abandon(ctx, q, gone, context.Canceled)
		require.ErrorIs(t, err, context.Canceled)

		start := time.Now()
		require.NoError(t, <-got, "round %d", round)
		require.Less(t, time.Since(start), 5*time.Second, "round %d: woken by the watchdog fallback, not at once", round)
		cancel()
		ref.Release()
		q.mu.Lock()
		q.streak = 0
		q.mu.Unlock()
	}
}
