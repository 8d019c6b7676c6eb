package engine

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson/internal/redistest"
)

// TestStreakEndStandsBack: when a hand-off streak ends, its release message
// decides who goes next. Heard by a waiter of another client, the local
// waiters stand back: the other client's waiter takes the lock, and the
// local one takes it at that holder's release (the next message), not at
// its own release's message nor at the end of the stand-back's timer. Heard
// by nobody else, the local waiter takes it at once.
func TestStreakEndStandsBack(t *testing.T) {
	srv := redistest.StartServer(t)
	eA, rtA := newTestEngineOn(t, srv, "client-a")
	eB, rtB := newTestEngineOn(t, srv, "client-b")
	// Long enough that only a message can end the stand-back in time.
	eA.standBackFor = time.Hour
	lA, lB := testLock(eA, "standback"), testLock(eB, "standback")
	ctx := context.Background()
	const lease = 30 * time.Second
	raw := redistest.Client(t, srv)
	// A waiter counts in the hub's Stats before its SUBSCRIBE is
	// confirmed; the release's PUBLISH counts the server's subscribers.
	subscribed := func(n int64) func() bool {
		return func() bool {
			m, err := raw.PubSubNumSub(ctx, lA.cfg.Channel).Result()
			return err == nil && m[lA.cfg.Channel] == n
		}
	}

	type got struct {
		who string
		h   *Hold
		err error
	}
	acquired := make(chan got, 2)
	wait := func(l *Lock, who string, owner int64) {
		h := &Hold{}
		ok, err := l.Acquire(ctx, h, Request{Owner: owner, Lease: lease, Wait: true})
		if err == nil && !ok {
			err = context.DeadlineExceeded
		}
		acquired <- got{who, h, err}
	}
	next := func() got {
		t.Helper()
		select {
		case g := <-acquired:
			require.NoError(t, g.err, g.who)
			return g
		case <-time.After(10 * time.Second):
			t.Fatal("nobody took the lock")
			return got{}
		}
	}
	endStreak := func() {
		ref := eA.queues.use(lA.queueKey, newQueue)
		q := ref.value()
		q.mu.Lock()
		q.streak = maxHandOffStreak
		q.mu.Unlock()
		ref.release()
	}

	for _, withOther := range []bool{true, false} {
		var h Hold
		ok, err := lA.Acquire(ctx, &h, Request{Owner: 1, Lease: lease, Wait: true})
		require.NoError(t, err)
		require.True(t, ok)
		go wait(lA, "a", 2)
		redistest.Eventually(t, 5*time.Second, "a's waiter subscribed", func() bool { return rtA.Hub().Stats().Waiters == 1 })
		redistest.Eventually(t, 5*time.Second, "a's subscription confirmed", subscribed(1))
		if withOther {
			go wait(lB, "b", 3)
			redistest.Eventually(t, 5*time.Second, "b's waiter subscribed", func() bool { return rtB.Hub().Stats().Waiters == 1 })
			redistest.Eventually(t, 5*time.Second, "b's subscription confirmed", subscribed(2))
		}
		endStreak()
		require.NoError(t, h.Unlock(ctx))

		if !withOther {
			g := next()
			require.Equal(t, "a", g.who, "alone, the local waiter goes on")
			require.NoError(t, g.h.Unlock(ctx))
			continue
		}
		g := next()
		require.Equal(t, "b", g.who, "the waiter elsewhere goes first")
		select {
		case g := <-acquired:
			t.Fatalf("%s took the lock while b held it: %v", g.who, g.err)
		default:
		}
		// b's release publishes: the next message ends a's stand-back.
		require.NoError(t, g.h.Unlock(ctx))
		g = next()
		require.Equal(t, "a", g.who)
		require.NoError(t, g.h.Unlock(ctx))
	}
}
