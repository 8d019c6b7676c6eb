package engine

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"
)

// The local queue's policy is tested here without Redis: a queue, its
// waiters and, for the timers (yield window, probe), synctest's fake clock.

func no() bool  { return false }
func yes() bool { return true }

// none is an undoPending with no undo running.
func none(string) bool { return false }

func newWaiter(field string) *waiter {
	return &waiter{field: field, state: parked, watchdog: true, nudge: make(chan struct{}, 1)}
}

// woke reports whether w was nudged, and takes the nudge.
func woke(w *waiter) bool {
	select {
	case <-w.nudge:
		return true
	default:
		return false
	}
}

func TestWakeUp(t *testing.T) {
	now := time.Unix(1000, 0)
	type input struct {
		state              waiterState
		woken, heard       bool
		backedOff          bool
		heldByOther, reent bool
		pending, releasing int
		yieldUntil         time.Time
		standing, ownHeard bool
		goal, seen         int
		probe              bool
	}
	type want struct {
		attempt    bool
		state      waiterState // w.state afterwards
		deferred   bool
		yieldLeft  time.Duration
		earlyHeard bool
		standing   bool
	}
	for _, tc := range []struct {
		name string
		in   input
		want want
	}{
		{"free: try", input{state: parked, backedOff: true}, want{attempt: true, state: trying}},
		{"backing off: wait", input{state: parked}, want{state: parked}},
		{"another local owner holds it", input{state: parked, backedOff: true, heldByOther: true}, want{state: parked}},
		{"a hand-off pending", input{state: parked, backedOff: true, pending: 1}, want{state: parked}},
		{"a re-entry tries although busy", input{state: parked, backedOff: true, heldByOther: true, reent: true}, want{attempt: true, state: trying}},
		{"busy during a release of ours: left to it", input{state: parked, backedOff: true, heldByOther: true, releasing: 1}, want{state: parked, deferred: true}},
		{"a message during a release of ours is early", input{state: parked, backedOff: true, heard: true, woken: true, heldByOther: true, releasing: 1}, want{state: parked, deferred: true, earlyHeard: true}},
		{"handed: take it", input{state: handed, backedOff: true}, want{state: handed}},
		{"unknown: find out", input{state: unknown, backedOff: true}, want{state: unknown}},
		{"yielding, woken by a timer", input{state: parked, backedOff: true, yieldUntil: now.Add(30 * time.Millisecond)}, want{state: parked, yieldLeft: 30 * time.Millisecond}},
		{"yielding, woken by the message", input{state: parked, backedOff: true, woken: true, heard: true, yieldUntil: now.Add(30 * time.Millisecond)}, want{attempt: true, state: trying}},
		{"yield window over", input{state: parked, backedOff: true, yieldUntil: now}, want{attempt: true, state: trying}},
		{"stand-back: our own release's message", input{state: parked, backedOff: true, woken: true, heard: true, standing: true, goal: 1}, want{state: parked, standing: true}},
		{"stand-back: the last message of others", input{state: parked, backedOff: true, woken: true, heard: true, standing: true, ownHeard: true, goal: 2, seen: 1}, want{attempt: true, state: trying}},
		{"stand-back: a probe", input{state: parked, backedOff: true, woken: true, standing: true, goal: 2, probe: true}, want{attempt: true, state: trying, standing: true}},
		{"stand-back: a local wake-up", input{state: parked, backedOff: true, woken: true, standing: true, goal: 2}, want{state: parked, standing: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				in := tc.in
				q := newQueue()
				w := newWaiter("f")
				w.state = in.state
				q.add(w)
				q.pending, q.releasing = in.pending, in.releasing
				q.y = yield{until: in.yieldUntil, standing: in.standing, ownHeard: in.ownHeard, goal: in.goal, seen: in.seen, probe: in.probe}
				held := func() bool { return in.heldByOther }
				reent := func() bool { return in.reent }
				got := q.wakeUp(w, now, in.woken, in.heard, in.backedOff, time.Hour, held, reent)
				require.Equal(t, tc.want.attempt, got.attempt)
				require.Equal(t, in.state, got.state)
				require.Equal(t, tc.want.state, w.state)
				require.Equal(t, tc.want.deferred, q.deferred)
				require.Equal(t, tc.want.yieldLeft, got.yieldLeft)
				require.Equal(t, tc.want.earlyHeard, q.y.earlyHeard)
				require.Equal(t, tc.want.standing, q.y.standing)
				q.y.end()
			})
		})
	}
}

// TestStandBackTakesTurns: a streak's release heard by two other clients
// makes the local waiter let two of their releases pass: not its own
// release's message, the first of the others', but the second. While the
// lock stays free, the probe timer lets it try anyway, and again after a
// failed try.
func TestStandBackTakesTurns(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := newQueue()
		w := newWaiter("f")
		q.add(w)
		q.streak = maxHandOffStreak
		next, yielded := q.beginRelease(none)
		require.Nil(t, next)
		require.True(t, yielded)
		q.endRelease(released{freed: true, yielded: true, heard: 3}, time.Now(), standBackFor)
		require.Zero(t, q.streak)
		require.True(t, q.y.standing)
		require.Equal(t, 2, q.y.goal)
		require.False(t, q.releaseDone(true), "no waiter was left to the release")
		require.Zero(t, q.releasing)

		wake := func(heard bool) turn {
			return q.wakeUp(w, time.Now(), true, heard, true, standBackFor, no, no)
		}
		require.False(t, wake(true).attempt, "our own release's message")
		require.False(t, wake(true).attempt, "the first release of another client")
		require.False(t, woke(w))

		// Nobody took the lock: the probe lets the waiter try.
		time.Sleep(standBackFor)
		synctest.Wait()
		require.True(t, woke(w), "the probe woke the oldest waiter")
		require.True(t, wake(false).attempt)
		q.tried(w, false, false, false) // held elsewhere: probe again later
		require.Equal(t, parked, w.state)

		time.Sleep(yieldWindow - time.Nanosecond)
		synctest.Wait()
		require.False(t, woke(w), "the probe after a failed try waits yieldWindow")
		time.Sleep(time.Nanosecond)
		synctest.Wait()
		require.True(t, woke(w))
		require.True(t, wake(false).attempt)
		q.tried(w, false, false, false)

		require.True(t, wake(true).attempt, "the second release of others ends the stand-back")
		require.False(t, q.y.standing)
		q.tried(w, true, true, false)
		require.Empty(t, q.waiters)
		time.Sleep(time.Hour)
		synctest.Wait()
		require.False(t, woke(w), "an ended stand-back probes no more")
	})
}

// TestEarlyMessageIsOurs: a message that reached a local waiter while the
// streak's release was in flight is taken for that release's own: the
// stand-back then waits for the others' only.
func TestEarlyMessageIsOurs(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := newQueue()
		w := newWaiter("f")
		q.add(w)
		q.streak = maxHandOffStreak
		q.beginRelease(none)
		t0 := q.wakeUp(w, time.Now(), true, true, true, standBackFor, yes, no)
		require.False(t, t0.attempt)
		require.True(t, q.y.earlyHeard)
		q.endRelease(released{freed: true, yielded: true, heard: 2}, time.Now(), standBackFor)
		require.True(t, q.releaseDone(true), "the waiter left to the release is woken by it")
		require.True(t, q.y.ownHeard)
		require.True(t, q.wakeUp(w, time.Now(), true, true, true, standBackFor, no, no).attempt,
			"one message of another client ends the stand-back")
		q.tried(w, true, true, false)
	})
}

// TestYieldWindow: a streak's release that nobody else heard makes local
// goroutines give way for yieldWindow, or until a message.
func TestYieldWindow(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := newQueue()
		w := newWaiter("f")
		q.add(w)
		q.streak = maxHandOffStreak
		q.beginRelease(none)
		q.endRelease(released{freed: true, yielded: true, heard: 1}, time.Now(), standBackFor)
		q.releaseDone(true)
		require.True(t, q.holdsBack(true, time.Now()), "a waiting newcomer gives way")
		require.False(t, q.holdsBack(false, time.Now()), "a single try does not")
		got := q.wakeUp(w, time.Now(), false, false, true, standBackFor, no, no)
		require.False(t, got.attempt)
		require.Equal(t, yieldWindow, got.yieldLeft)
		time.Sleep(yieldWindow)
		require.False(t, q.holdsBack(true, time.Now()))
		require.True(t, q.wakeUp(w, time.Now(), false, false, true, standBackFor, no, no).attempt)
	})
}

func TestEndRelease(t *testing.T) {
	start := time.Unix(1000, 0)
	for _, tc := range []struct {
		name            string
		r               released
		withNext        bool
		wantState       waiterState
		pending, streak int
	}{
		{"handed over", released{freed: true, value: 7}, true, handed, 1, 6},
		{"handed over, the value unknown", released{freed: true, noValue: true}, true, unknown, 1, 6},
		{"no reply: the waiter finds out", released{maybeRan: true}, true, unknown, 1, 5},
		{"not freed: the waiter parks again", released{}, true, parked, 0, 5},
		{"freed, nobody to hand to", released{freed: true}, false, parked, 0, 0},
		{"a partial release", released{}, false, parked, 0, 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := newQueue()
			w := newWaiter("f")
			q.add(w)
			q.streak = 5
			next, yielded := q.beginRelease(none)
			require.False(t, yielded)
			require.Same(t, w, next)
			require.Equal(t, handing, w.state)
			if !tc.withNext {
				w.state, next = parked, nil
			}
			tc.r.next, tc.r.start = next, start
			q.endRelease(tc.r, start, standBackFor)
			require.Equal(t, tc.wantState, w.state)
			require.Equal(t, tc.pending, q.pending)
			require.Equal(t, tc.streak, q.streak)
			require.Equal(t, tc.withNext, woke(w))
			if tc.withNext && tc.wantState != parked {
				require.Equal(t, start, w.start)
				require.Equal(t, tc.r.value, w.value)
			}
			require.False(t, q.y.yielding(start), "no streak ended")
		})
	}
}

func TestBeginReleasePicksWhoOwesNothing(t *testing.T) {
	q := newQueue()
	owes, undoing, free := newWaiter("owes"), newWaiter("undoing"), newWaiter("free")
	owes.owesUndo = true
	for _, w := range []*waiter{owes, undoing, free} {
		q.add(w)
	}
	next, yielded := q.beginRelease(func(field string) bool { return field == "undoing" })
	require.False(t, yielded)
	require.Same(t, free, next)
	require.Equal(t, 1, q.releasing)
	q.streak = maxHandOffStreak
	next, yielded = q.beginRelease(none)
	require.Nil(t, next)
	require.True(t, yielded, "the streak's end")
}

func TestPassTo(t *testing.T) {
	fixed := newWaiter("fixed")
	fixed.watchdog = false
	known := newWaiter("known")
	known.hold = &Hold{}
	known.hold.id.Store(idKnown)
	private := newWaiter("private")
	private.hold = &Hold{}
	for _, tc := range []struct {
		name  string
		w     *waiter
		claim bool
		want  bool
	}{
		{"a fixed lease", fixed, true, false},
		{"no hold to fill", newWaiter("nohold"), true, false},
		{"its owner id known outside", known, true, false},
		{"the releaser's id known meanwhile", private, false, false},
		{"passed", private, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := newQueue()
			tc.w.state = parked
			q.add(tc.w)
			claimed := false
			next := q.passTo(none, func() bool { claimed = true; return tc.claim })
			if !tc.want {
				require.Nil(t, next)
				require.Equal(t, parked, tc.w.state)
				return
			}
			require.True(t, claimed)
			require.Same(t, tc.w, next)
			require.Equal(t, handing, next.state)
			q.passed(next, true, 42, "field")
			require.Equal(t, handed, next.state)
			require.True(t, next.passed)
			require.Equal(t, int64(42), next.hold.owner)
			require.Equal(t, "field", next.field)
			require.Equal(t, 1, q.pending)
			require.Equal(t, 1, q.streak)
			require.True(t, woke(next))
		})
	}
}

// TestLeaveWaitsForHandOff: a waiter that gives up while a hand-off to it
// runs leaves once the hand-off ended, and learns how.
func TestLeaveWaitsForHandOff(t *testing.T) {
	for _, ok := range []bool{false, true} {
		synctest.Test(t, func(t *testing.T) {
			q := newQueue()
			w := newWaiter("f")
			w.hold = &Hold{}
			q.add(w)
			require.Same(t, w, q.passTo(none, yes))
			type left struct {
				state  waiterState
				passed bool
			}
			done := make(chan left, 1)
			go func() {
				s, p := q.leave(w)
				done <- left{s, p}
			}()
			synctest.Wait()
			require.Empty(t, done, "left while the hand-off ran")
			q.passed(w, ok, 1, "f")
			got := <-done
			require.Equal(t, ok, got.passed)
			if ok {
				require.Equal(t, handed, got.state)
				require.Zero(t, q.pending, "a passed hold no longer pending")
			} else {
				require.Equal(t, parked, got.state)
			}
			require.Empty(t, q.waiters)
		})
	}
}

func TestResolved(t *testing.T) {
	q := newQueue()
	w := newWaiter("f")
	q.add(w)
	q.pending = 1
	w.state = unknown
	q.resolved(w, true, 9)
	require.Equal(t, handed, w.state)
	require.Equal(t, int64(9), w.value)
	require.Equal(t, 1, q.pending, "the hand-off still counts until taken")
	q.taken(w)
	require.Zero(t, q.pending)
	require.Empty(t, q.waiters)

	w2 := newWaiter("g")
	q.add(w2)
	q.pending = 1
	w2.state = unknown
	q.resolved(w2, false, 0)
	require.Equal(t, parked, w2.state)
	require.Zero(t, q.pending)
	require.True(t, woke(w2), "it tries on its own")
}

func TestPassOver(t *testing.T) {
	for _, tc := range []struct {
		pending, releasing int
		held, want         bool
	}{
		{0, 0, false, false},
		{0, 0, true, true},
		{1, 0, false, true},
		{1, 1, true, false}, // perhaps our own release's message
	} {
		q := newQueue()
		q.pending, q.releasing = tc.pending, tc.releasing
		require.Equal(t, tc.want, q.passOver(func() bool { return tc.held }), "%+v", tc)
	}
}
