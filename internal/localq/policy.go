package localq

import "time"

// The local queue's policy: who tries, who is handed or passed the lock,
// and when local goroutines give way (yield). Each method takes Queue.mu
// itself and asks nothing of Redis; what it needs of the client's hold
// registry comes in as functions it calls with Queue.mu held, so that a
// release cannot change the registry between the read and the decision.

// Turn is what a waiter that woke is to do.
type Turn struct {
	State   State // handed or unknown: take the lock, or find out
	Attempt bool  // send a try now (w.state is trying then)
	// YieldLeft is how long local goroutines still give way, when that
	// is what keeps the waiter from trying.
	YieldLeft time.Duration
}

// WakeUp decides what waiter w does after it woke: woken by a message or
// a local wake-up (not a timer), heard by a message; backedOff when its
// back-off after a failed try is over. heldByOther reports whether another
// owner of this client holds the lock, reentering whether w's owner does.
// A waiter tries when nobody of this client holds the lock or is being
// handed it, nor gives way; a parked waiter that may not, woken while a
// release of ours is in flight (perhaps by that release's own message,
// before the registry knows the lock is free), is left to that release,
// which wakes the oldest waiter when it is done.
func (q *Queue[H]) WakeUp(w *Waiter[H], now time.Time, woken, heard, backedOff bool, probeAfter time.Duration, heldByOther, reentering func() bool) Turn {
	q.mu.Lock()
	defer q.mu.Unlock()
	t := Turn{State: w.state}
	busy := q.pending > 0 || heldByOther()
	if heard && q.releasing > 0 {
		q.y.earlyHeard = true
	}
	if q.y.yielding(now) {
		switch {
		case q.y.standing:
			if q.y.standingBack(heard, probeAfter, q.probeFired) {
				busy = true
			}
		case woken:
			// The release message (or a local wake-up) came: the
			// streak's end is known everywhere now.
			q.y.until = time.Time{}
		default:
			busy, t.YieldLeft = true, q.y.until.Sub(now)
		}
	}
	t.Attempt = t.State == Parked && backedOff && (!busy || reentering())
	if t.Attempt {
		w.state = Trying
	} else if t.State == Parked && backedOff && q.releasing > 0 {
		q.deferred = true
	}
	return t
}

// HoldsBack reports whether an acquisition's first try waits: another
// local owner is being handed the lock, or (for a waiting call: a single
// try does not queue, so it takes no turn from anyone) local goroutines
// give way.
func (q *Queue[H]) HoldsBack(wait bool, now time.Time) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.pending > 0 || (wait && q.y.yielding(now))
}

// PassOver reports whether an unlock message is for no local waiter: a
// goroutine of this client holds the lock (heldLocally) or is being handed
// it, and no release of ours is in flight. That holder's release hands over
// or wakes the oldest.
func (q *Queue[H]) PassOver(heldLocally func() bool) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.releasing == 0 && (q.pending > 0 || heldLocally())
}

// Tried records the outcome of w's own try: it leaves the queue (it took
// the lock, or gives up), or parks again, owing an undo or not. A try
// during a stand-back that took the lock ends it (a probe found the lock
// free); one that found it held elsewhere probes again later, should that
// holder's release message be lost.
func (q *Queue[H]) Tried(w *Waiter[H], ok, leave, owesUndo bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if leave {
		q.remove(w)
	} else {
		w.state, w.owesUndo = Parked, owesUndo
	}
	switch {
	case ok && q.y.standing:
		q.y.end()
	case !ok && q.y.standing:
		q.y.armProbe(yieldWindow, q.probeFired)
	}
}

// probeFired lets the oldest parked waiter try during a stand-back.
func (q *Queue[H]) probeFired() {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.y.fired() {
		if w := q.firstParked(); w != nil {
			w.wake()
		}
	}
}

// BeginRelease counts a release of ours in flight and picks the waiter it
// hands the lock to (now handing): the oldest parked one that owes no undo
// (undoPending), unless the streak has reached its end (yielded: the
// release is a real one).
func (q *Queue[H]) BeginRelease(undoPending func(field string) bool) (next *Waiter[H], yielded bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.releasing++
	q.y.earlyHeard = false
	if q.streak >= MaxHandOffStreak {
		return nil, true
	}
	if next = q.firstHandOff(undoPending); next != nil {
		next.state = Handing
	}
	return next, false
}

// Released is what a release tells the queue once its script answered.
type Released[H any] struct {
	Next    *Waiter[H] // the waiter it was to hand the lock to, or nil
	Freed   bool       // the owner's last hold went (or was handed over)
	Start   time.Time  // the release's first send
	Value   int64      // the value the hand-off gave next (ValueScripts)
	NoValue bool       // a hand-off of an object with values whose reply lacks it
	// MaybeRan: it failed, but the hand-off may have happened (no reply,
	// or the message refused after the script ran).
	MaybeRan bool
	Yielded  bool // the streak's end: a real release
	Heard    int  // connections the message reached, this client's included
}

// EndRelease records the release's outcome for its successor and the
// streak, and wakes the successor. A streak's real release while local
// waiters are parked makes local goroutines give way: our own waiters are
// subscribed, so the message reached one of our connections, and any more
// are waiters elsewhere, which are let go first (standBack); with none, for
// yieldWindow.
func (q *Queue[H]) EndRelease(r Released[H], now time.Time, probeAfter time.Duration) {
	q.mu.Lock()
	defer q.mu.Unlock()
	next := r.Next
	switch {
	case next != nil && r.Freed && r.NoValue:
		// Handed over, but the reply did not carry the value (the latch
		// replayed an earlier attempt whose reply was lost): the waiter
		// reads it from Redis.
		next.state, next.start = Unknown, r.Start
		q.pending++
		q.streak++
	case next != nil && r.Freed:
		next.state, next.start, next.value = Handed, r.Start, r.Value
		q.pending++
		q.streak++
	case next != nil && r.MaybeRan:
		// The waiter asks Redis; its lease would count from the first send.
		next.state, next.start = Unknown, r.Start
		q.pending++
	case next != nil:
		next.state = Parked
	case r.Freed:
		q.streak = 0
		if r.Yielded && q.firstParked() != nil {
			if r.Heard > 1 {
				q.y.standBack(r.Heard-1, probeAfter, q.probeFired)
			} else {
				q.y.yieldFor(now)
			}
		}
	}
	if next != nil {
		next.wake()
	}
}

// ReleaseDone ends a release of ours in flight once the registry knows its
// outcome. It reports whether a waiter was left to it (deferred), which the
// caller then wakes: only a release that freed the lock (full) takes that
// over, a re-entrant owner's partial one leaves it to the full release.
func (q *Queue[H]) ReleaseDone(full bool) (deferred bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.releasing--
	if full {
		deferred, q.deferred = q.deferred, false
	}
	return deferred
}

// PassTo picks the waiter a hold whose owner id only the engine knows may
// be passed to without a round trip, and marks it handing: the oldest
// parked waiter that owes no undo, waits with the watchdog lease and an
// owner id only the engine knows, within the streak. claim takes the
// releasing hold's id (Hold.claimID); it runs only once a waiter
// qualifies, so that an Owner call racing an Unlock that then goes through
// Redis still gets the id. It returns nil, changing nothing, when no
// waiter qualifies or claim fails.
func (q *Queue[H]) PassTo(undoPending func(field string) bool, fillable func(H) bool, claim func() bool) *Waiter[H] {
	q.mu.Lock()
	defer q.mu.Unlock()
	var next *Waiter[H]
	if q.streak < MaxHandOffStreak {
		next = q.firstHandOff(undoPending)
	}
	if next == nil || !next.Watchdog || !fillable(next.Hold) || !claim() {
		return nil
	}
	next.state = Handing
	return next
}

// Passed records the outcome of a pass to next (ok: next holds the hold of
// owner now, as field) and wakes next.
func (q *Queue[H]) Passed(next *Waiter[H], ok bool, field string, fill func(H)) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if ok {
		fill(next.Hold)
		next.Field = field
		next.state, next.passed = Handed, true
		q.pending++
		q.streak++
	} else {
		next.state = Parked
	}
	next.wake()
}

// Taken ends the hand-off to w, which took the lock, and takes it out of
// the queue.
func (q *Queue[H]) Taken(w *Waiter[H]) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.pending--
	q.remove(w)
}

// HandedTo returns what w was given: whether a pass gave it a registered
// hold, and the hand-off's value.
func (q *Queue[H]) HandedTo(w *Waiter[H]) (passed bool, value int64) {
	q.mu.Lock()
	defer q.mu.Unlock()
	return w.passed, w.value
}

// Resolved records what Redis said of a hand-off to w whose reply was lost:
// it happened (held, with the value it gave), or w parks again and tries.
func (q *Queue[H]) Resolved(w *Waiter[H], held bool, value int64) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if held {
		w.state, w.value = Handed, value
		return
	}
	q.pending--
	w.state = Parked
	w.wake()
}

// Leave takes w, whose caller gives up, out of the queue, once a hand-off
// to it in flight has ended, and returns its state then and whether a
// pass gave it a hold (which then no longer counts as pending).
func (q *Queue[H]) Leave(w *Waiter[H]) (state State, passed bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for w.state == Handing {
		q.mu.Unlock()
		<-w.nudge
		q.mu.Lock()
	}
	state, passed = w.state, w.passed
	q.remove(w)
	if passed {
		q.pending--
	}
	return state, passed
}

// GaveBack ends a hand-off to a waiter that left, whose release of the
// lock (begun by beginRelease) is done.
func (q *Queue[H]) GaveBack() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.pending--
	q.releasing--
	q.deferred = false
}

// WakeOldest wakes the oldest parked waiter, if any.
func (q *Queue[H]) WakeOldest() {
	q.mu.Lock()
	defer q.mu.Unlock()
	if w := q.firstParked(); w != nil {
		w.wake()
	}
}
