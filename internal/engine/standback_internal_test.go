package engine

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson/internal/localq"
	"github.com/goredisson/redisson/internal/redistest"
)

// TestStreakEndStandsBack: when a hand-off streak ends, its release message
// decides who goes next. Heard by waiters of n other clients, the local
// waiters stand back for n releases of others: each of those clients takes
// the lock once, and only then the local waiter, at the n-th release's
// message (not at its own release's, nor at the stand-back's timer). Heard
// by nobody else, the local waiter takes it at once.
func TestStreakEndStandsBack(t *testing.T) {
	for _, others := range []int{0, 1, 2} {
		t.Run(fmt.Sprintf("%d others", others), func(t *testing.T) {
			testStandBack(t, others)
		})
	}
}

func testStandBack(t *testing.T, others int) {
	srv := redistest.StartServer(t)
	eA, rtA := newTestEngineOn(t, srv, "client-a")
	// Long enough that only messages can end the stand-back in time.
	eA.standBackFor = time.Hour
	lA := testLock(eA, "standback")
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
	acquired := make(chan got, 1+others)
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

	var h Hold
	ok, err := lA.Acquire(ctx, &h, Request{Owner: 1, Lease: lease, Wait: true})
	require.NoError(t, err)
	require.True(t, ok)
	go wait(lA, "a", 2)
	redistest.Eventually(t, 5*time.Second, "a's waiter subscribed", func() bool { return rtA.Hub().Stats().Waiters == 1 })
	redistest.Eventually(t, 5*time.Second, "a's subscription confirmed", subscribed(1))
	for i := range others {
		e, _ := newTestEngineOn(t, srv, fmt.Sprintf("client-%d", i))
		go wait(testLock(e, "standback"), fmt.Sprintf("other %d", i), 3)
		redistest.Eventually(t, 5*time.Second, "the other waiter's subscription confirmed", subscribed(int64(2+i)))
	}
	ref := eA.queues.use(lA.queueKey, localq.New[*Hold])
	q := ref.value()
	q.SetStreak(localq.MaxHandOffStreak) // this release ends a streak
	ref.release()
	require.NoError(t, h.Unlock(ctx))

	seen := map[string]bool{}
	for range others {
		g := next()
		require.NotEqual(t, "a", g.who, "a took the lock before every other client had it once (%v)", seen)
		require.False(t, seen[g.who])
		seen[g.who] = true
		select {
		case g := <-acquired:
			t.Fatalf("%s took the lock while it was held: %v", g.who, g.err)
		default:
		}
		require.NoError(t, g.h.Unlock(ctx))
	}
	g := next()
	require.Equal(t, "a", g.who)
	require.NoError(t, g.h.Unlock(ctx))
}
