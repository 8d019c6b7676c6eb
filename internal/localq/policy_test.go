package localq

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

// hold stands for the engine's hold: a pass fills it when it is private.
type hold struct {
	private bool
	owner   int64
}

func fillable(h *hold) bool { return h != nil && h.private }

func newWaiter(field string) *Waiter[*hold] {
	return NewWaiter(Waiter[*hold]{Field: field, Watchdog: true}, false)
}

// woke reports whether w was nudged, and takes the nudge.
func woke(w *Waiter[*hold]) bool {
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
		state              State
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
		state      State // w.state afterwards
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
		{"free: try", input{state: Parked, backedOff: true}, want{attempt: true, state: Trying}},
		{"backing off: wait", input{state: Parked}, want{state: Parked}},
		{"another local owner holds it", input{state: Parked, backedOff: true, heldByOther: true}, want{state: Parked}},
		{"a hand-off pending", input{state: Parked, backedOff: true, pending: 1}, want{state: Parked}},
		{"a re-entry tries although busy", input{state: Parked, backedOff: true, heldByOther: true, reent: true}, want{attempt: true, state: Trying}},
		{"busy during a release of ours: left to it", input{state: Parked, backedOff: true, heldByOther: true, releasing: 1}, want{state: Parked, deferred: true}},
		{"a message during a release of ours is early", input{state: Parked, backedOff: true, heard: true, woken: true, heldByOther: true, releasing: 1}, want{state: Parked, deferred: true, earlyHeard: true}},
		{"handed: take it", input{state: Handed, backedOff: true}, want{state: Handed}},
		{"unknown: find out", input{state: Unknown, backedOff: true}, want{state: Unknown}},
		{"yielding, woken by a timer", input{state: Parked, backedOff: true, yieldUntil: now.Add(30 * time.Millisecond)}, want{state: Parked, yieldLeft: 30 * time.Millisecond}},
		{"yielding, woken by the message", input{state: Parked, backedOff: true, woken: true, heard: true, yieldUntil: now.Add(30 * time.Millisecond)}, want{attempt: true, state: Trying}},
		{"yield window over", input{state: Parked, backedOff: true, yieldUntil: now}, want{attempt: true, state: Trying}},
		{"stand-back: our own release's message", input{state: Parked, backedOff: true, woken: true, heard: true, standing: true, goal: 1}, want{state: Parked, standing: true}},
		{"stand-back: the last message of others", input{state: Parked, backedOff: true, woken: true, heard: true, standing: true, ownHeard: true, goal: 2, seen: 1}, want{attempt: true, state: Trying}},
		{"stand-back: a probe", input{state: Parked, backedOff: true, woken: true, standing: true, goal: 2, probe: true}, want{attempt: true, state: Trying, standing: true}},
		{"stand-back: a local wake-up", input{state: Parked, backedOff: true, woken: true, standing: true, goal: 2}, want{state: Parked, standing: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				in := tc.in
				q := New[*hold]()
				w := newWaiter("f")
				w.state = in.state
				q.add(w)
				q.pending, q.releasing = in.pending, in.releasing
				q.y = yield{until: in.yieldUntil, standing: in.standing, ownHeard: in.ownHeard, goal: in.goal, seen: in.seen, probe: in.probe}
				held := func() bool { return in.heldByOther }
				reent := func() bool { return in.reent }
				got := q.WakeUp(w, now, in.woken, in.heard, in.backedOff, time.Hour, held, reent)
				require.Equal(t, tc.want.attempt, got.Attempt)
				require.Equal(t, in.state, got.State)
				require.Equal(t, tc.want.state, w.state)
				require.Equal(t, tc.want.deferred, q.deferred)
				require.Equal(t, tc.want.yieldLeft, got.YieldLeft)
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
		q := New[*hold]()
		w := newWaiter("f")
		q.add(w)
		q.streak = MaxHandOffStreak
		next, yielded := q.BeginRelease(none)
		require.Nil(t, next)
		require.True(t, yielded)
		q.EndRelease(Released[*hold]{Freed: true, Yielded: true, Heard: 3}, time.Now(), StandBackFor)
		require.Zero(t, q.streak)
		require.True(t, q.y.standing)
		require.Equal(t, 2, q.y.goal)
		require.False(t, q.ReleaseDone(true), "no waiter was left to the release")
		require.Zero(t, q.releasing)

		wake := func(heard bool) Turn {
			return q.WakeUp(w, time.Now(), true, heard, true, StandBackFor, no, no)
		}
		require.False(t, wake(true).Attempt, "our own release's message")
		require.False(t, wake(true).Attempt, "the first release of another client")
		require.False(t, woke(w))

		// Nobody took the lock: the probe lets the waiter try.
		time.Sleep(StandBackFor)
		synctest.Wait()
		require.True(t, woke(w), "the probe woke the oldest waiter")
		require.True(t, wake(false).Attempt)
		q.Tried(w, false, false, false) // held elsewhere: probe again later
		require.Equal(t, Parked, w.state)

		time.Sleep(yieldWindow - time.Nanosecond)
		synctest.Wait()
		require.False(t, woke(w), "the probe after a failed try waits yieldWindow")
		time.Sleep(time.Nanosecond)
		synctest.Wait()
		require.True(t, woke(w))
		require.True(t, wake(false).Attempt)
		q.Tried(w, false, false, false)

		require.True(t, wake(true).Attempt, "the second release of others ends the stand-back")
		require.False(t, q.y.standing)
		q.Tried(w, true, true, false)
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
		q := New[*hold]()
		w := newWaiter("f")
		q.add(w)
		q.streak = MaxHandOffStreak
		q.BeginRelease(none)
		t0 := q.WakeUp(w, time.Now(), true, true, true, StandBackFor, yes, no)
		require.False(t, t0.Attempt)
		require.True(t, q.y.earlyHeard)
		q.EndRelease(Released[*hold]{Freed: true, Yielded: true, Heard: 2}, time.Now(), StandBackFor)
		require.True(t, q.ReleaseDone(true), "the waiter left to the release is woken by it")
		require.True(t, q.y.ownHeard)
		require.True(t, q.WakeUp(w, time.Now(), true, true, true, StandBackFor, no, no).Attempt,
			"one message of another client ends the stand-back")
		q.Tried(w, true, true, false)
	})
}

// TestYieldWindow: a streak's release that nobody else heard makes local
// goroutines give way for yieldWindow, or until a message.
func TestYieldWindow(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := New[*hold]()
		w := newWaiter("f")
		q.add(w)
		q.streak = MaxHandOffStreak
		q.BeginRelease(none)
		q.EndRelease(Released[*hold]{Freed: true, Yielded: true, Heard: 1}, time.Now(), StandBackFor)
		q.ReleaseDone(true)
		require.True(t, q.HoldsBack(true, time.Now()), "a waiting newcomer gives way")
		require.False(t, q.HoldsBack(false, time.Now()), "a single try does not")
		got := q.WakeUp(w, time.Now(), false, false, true, StandBackFor, no, no)
		require.False(t, got.Attempt)
		require.Equal(t, yieldWindow, got.YieldLeft)
		time.Sleep(yieldWindow)
		require.False(t, q.HoldsBack(true, time.Now()))
		require.True(t, q.WakeUp(w, time.Now(), false, false, true, StandBackFor, no, no).Attempt)
	})
}

func TestEndRelease(t *testing.T) {
	start := time.Unix(1000, 0)
	for _, tc := range []struct {
		name            string
		r               Released[*hold]
		withNext        bool
		wantState       State
		pending, streak int
	}{
		{"handed over", Released[*hold]{Freed: true, Value: 7}, true, Handed, 1, 6},
		{"handed over, the value unknown", Released[*hold]{Freed: true, NoValue: true}, true, Unknown, 1, 6},
		{"no reply: the waiter finds out", Released[*hold]{MaybeRan: true}, true, Unknown, 1, 5},
		{"not freed: the waiter parks again", Released[*hold]{}, true, Parked, 0, 5},
		{"freed, nobody to hand to", Released[*hold]{Freed: true}, false, Parked, 0, 0},
		{"a partial release", Released[*hold]{}, false, Parked, 0, 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := New[*hold]()
			w := newWaiter("f")
			q.add(w)
			q.streak = 5
			next, yielded := q.BeginRelease(none)
			require.False(t, yielded)
			require.Same(t, w, next)
			require.Equal(t, Handing, w.state)
			if !tc.withNext {
				w.state, next = Parked, nil
			}
			tc.r.Next, tc.r.Start = next, start
			q.EndRelease(tc.r, start, StandBackFor)
			require.Equal(t, tc.wantState, w.state)
			require.Equal(t, tc.pending, q.pending)
			require.Equal(t, tc.streak, q.streak)
			require.Equal(t, tc.withNext, woke(w))
			if tc.withNext && tc.wantState != Parked {
				require.Equal(t, start, w.start)
				require.Equal(t, tc.r.Value, w.value)
			}
			require.False(t, q.y.yielding(start), "no streak ended")
		})
	}
}

func TestBeginReleasePicksWhoOwesNothing(t *testing.T) {
	q := New[*hold]()
	owes, undoing, free := newWaiter("owes"), newWaiter("undoing"), newWaiter("free")
	owes.owesUndo = true
	for _, w := range []*Waiter[*hold]{owes, undoing, free} {
		q.add(w)
	}
	next, yielded := q.BeginRelease(func(field string) bool { return field == "undoing" })
	require.False(t, yielded)
	require.Same(t, free, next)
	require.Equal(t, 1, q.releasing)
	q.streak = MaxHandOffStreak
	next, yielded = q.BeginRelease(none)
	require.Nil(t, next)
	require.True(t, yielded, "the streak's end")
}

func TestPassTo(t *testing.T) {
	fixed := newWaiter("fixed")
	fixed.Watchdog = false
	known := newWaiter("known")
	known.Hold = &hold{}
	private := newWaiter("private")
	private.Hold = &hold{private: true}
	for _, tc := range []struct {
		name  string
		w     *Waiter[*hold]
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
			q := New[*hold]()
			tc.w.state = Parked
			q.add(tc.w)
			claimed := false
			next := q.PassTo(none, fillable, func() bool { claimed = true; return tc.claim })
			if !tc.want {
				require.Nil(t, next)
				require.Equal(t, Parked, tc.w.state)
				return
			}
			require.True(t, claimed)
			require.Same(t, tc.w, next)
			require.Equal(t, Handing, next.state)
			q.Passed(next, true, "field", func(h *hold) { h.owner = 42 })
			require.Equal(t, Handed, next.state)
			require.True(t, next.passed)
			require.Equal(t, int64(42), next.Hold.owner)
			require.Equal(t, "field", next.Field)
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
			q := New[*hold]()
			w := newWaiter("f")
			w.Hold = &hold{private: true}
			q.add(w)
			require.Same(t, w, q.PassTo(none, fillable, yes))
			type left struct {
				state  State
				passed bool
			}
			done := make(chan left, 1)
			go func() {
				s, p := q.Leave(w)
				done <- left{s, p}
			}()
			synctest.Wait()
			require.Empty(t, done, "left while the hand-off ran")
			q.Passed(w, ok, "f", func(h *hold) { h.owner = 1 })
			got := <-done
			require.Equal(t, ok, got.passed)
			if ok {
				require.Equal(t, Handed, got.state)
				require.Zero(t, q.pending, "a passed hold no longer pending")
			} else {
				require.Equal(t, Parked, got.state)
			}
			require.Empty(t, q.waiters)
		})
	}
}

func TestResolved(t *testing.T) {
	q := New[*hold]()
	w := newWaiter("f")
	q.add(w)
	q.pending = 1
	w.state = Unknown
	q.Resolved(w, true, 9)
	require.Equal(t, Handed, w.state)
	require.Equal(t, int64(9), w.value)
	require.Equal(t, 1, q.pending, "the hand-off still counts until taken")
	q.Taken(w)
	require.Zero(t, q.pending)
	require.Empty(t, q.waiters)

	w2 := newWaiter("g")
	q.add(w2)
	q.pending = 1
	w2.state = Unknown
	q.Resolved(w2, false, 0)
	require.Equal(t, Parked, w2.state)
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
		q := New[*hold]()
		q.pending, q.releasing = tc.pending, tc.releasing
		require.Equal(t, tc.want, q.PassOver(func() bool { return tc.held }), "%+v", tc)
	}
}
