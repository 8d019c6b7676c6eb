package engine

import (
	"context"
	"sync"
	"time"
)

// Waiters of one lock in one client line up in a local queue. A waiter never
// asks Redis while another owner of its own client holds the lock (that
// owner's unlock will hand it over or publish), so a client sends at most one
// acquire attempt per release instead of one per waiting goroutine. The
// unlock of a holder that finds a parked waiter hands the lock over in its
// own script (unlockHandOffScript): one round trip from holder to next
// holder. After maxHandOffStreak hand-offs in a row the lock is released for
// real, so waiters of other processes (and Java peers) get their turn.
const maxHandOffStreak = 16

// queue is one lock's local wait state, shared by every handle of the lock
// in one client (Engine.queues).
type queue struct {
	mu      sync.Mutex
	waiters []*waiter // arrival order
	pending int       // hand-offs whose new holder has not registered its hold yet
	streak  int       // hand-offs since the last real release
	// releasing counts releases of this client in flight, from before
	// their script is sent until the registry knows their outcome: a
	// release message seen meanwhile may be our own and must not be
	// passed over.
	releasing int
	// deferred: a waiter woken while a release was in flight found the
	// lock still held in the registry; the release wakes the oldest when
	// it is done.
	deferred bool
	// yieldUntil: a hand-off streak just ended with a real release while
	// local waiters were parked. Until the release message reaches one of
	// them (or this time passes, should it be lost) no local goroutine
	// tries: the releaser looping back to Lock and newcomers would
	// otherwise beat every waiter elsewhere, which has to hear the message
	// first, and the lock would stay in this process.
	yieldUntil time.Time
	// standBack: the streak's release message reached standGoal clients
	// besides this one (HeardScripts). Local goroutines then let that many
	// releases of other clients pass before they try again: not on their
	// own release's message (ownHeard), only once standSeen messages of
	// others came; so clients take turns, and a streak does not end in the
	// process that had it. Should the lock stay free meanwhile (a listener
	// that does not wait, a lost message), the probe timer lets the oldest
	// try: Engine.standBackFor after a message, yieldWindow after a
	// failed try.
	standBack            bool
	standGoal, standSeen int
	// ownHeard: during a stand-back, a local waiter has had the message
	// of the release that began it. earlyHeard: a message reached a local
	// waiter while a release of ours was in flight (it may be that
	// release's, ahead of its reply).
	ownHeard, earlyHeard bool
	probe                bool        // the probe timer fired: the oldest tries once
	probeTimer           *time.Timer // armed during a stand-back
}

// standBackFor is how long the lock may stay free after a release message
// during a stand-back before a local waiter tries anyway: time for a waiter
// elsewhere to hear the message and send its try.
const standBackFor = 2 * time.Millisecond

// endStandBack ends a stand-back; q.mu held.
func (q *queue) endStandBack() {
	q.standBack, q.probe = false, false
	if q.probeTimer != nil {
		q.probeTimer.Stop()
	}
}

// armProbe makes the oldest parked waiter try in d unless the stand-back
// ends first; q.mu held.
func (q *queue) armProbe(d time.Duration) {
	if q.probeTimer != nil {
		q.probeTimer.Reset(d)
		return
	}
	q.probeTimer = time.AfterFunc(d, func() {
		q.mu.Lock()
		defer q.mu.Unlock()
		if !q.standBack {
			return
		}
		q.probe = true
		if w := q.firstParked(); w != nil {
			w.wake()
		}
	})
}

// standingBack decides, during a stand-back, whether a waiter that woke
// (heard: by a message) stands back still; q.mu held.
func (q *queue) standingBack(heard bool, probeAfter time.Duration) bool {
	switch {
	case heard && !q.ownHeard:
		q.ownHeard = true // our own release's
		return true
	case heard:
		q.standSeen++
		if q.standSeen >= q.standGoal {
			q.endStandBack()
			return false
		}
		q.armProbe(probeAfter)
		return true
	case q.probe:
		q.probe = false
		return false
	}
	return true
}

// yieldWindow bounds how long local goroutines stand back after a streak
// ends, in case the release message is lost.
const yieldWindow = 50 * time.Millisecond

// yielding reports whether local goroutines stand back now; q.mu held.
func (q *queue) yielding(now time.Time) bool {
	return q.standBack || !q.yieldUntil.IsZero() && now.Before(q.yieldUntil)
}

func newQueue() *queue { return &queue{} }

type waiterState uint8

const (
	// trying: the waiter is running its own acquire attempt.
	trying waiterState = iota
	// parked: sleeping; an unlock may pick it for a hand-off.
	parked
	// handing: an unlock is running the hand-off script for it.
	handing
	// handed: the lock is its own; it only has to take it.
	handed
	// unknown: a hand-off to it failed in transit; whether it holds the
	// lock must be read from Redis.
	unknown
)

// waiter is one goroutine waiting in Lock or TryLock.
type waiter struct {
	field    string
	lease    time.Duration
	watchdog bool
	state    waiterState // guarded by queue.mu
	start    time.Time   // when the hand-off script was sent
	value    int64       // the hand-off's value (ValueScripts); guarded by queue.mu
	// owesUndo: a try of its own lost its reply and the undo of that try
	// has not gone through yet. It is not handed the lock meanwhile: the
	// undo, sent later, would release the lock handed to it. Guarded by
	// queue.mu.
	owesUndo bool
	nudge    chan struct{}
	// hold and base are the hold the waiter fills and the context whose
	// values it keeps, for a release that passes its hold on (Lock.passOn).
	// passed: one did; the hold is registered and w only has to return it.
	// Guarded by queue.mu once w is queued.
	hold   *Hold
	base   context.Context
	passed bool
}

func (q *queue) add(w *waiter) { q.waiters = append(q.waiters, w) }

func (q *queue) remove(w *waiter) {
	for i, x := range q.waiters {
		if x == w {
			q.waiters = append(q.waiters[:i], q.waiters[i+1:]...)
			return
		}
	}
}

// firstParked returns the oldest parked waiter, or nil. A waiter backing
// off after a failed try counts: a wake-up ends its back-off.
func (q *queue) firstParked() *waiter {
	for _, w := range q.waiters {
		if w.state == parked {
			return w
		}
	}
	return nil
}

// firstHandOff returns the oldest parked waiter the lock may be handed
// to, or nil: one that owes no undo (waiter.owesUndo), per its own record
// and per the undos running in the background (pending).
func (q *queue) firstHandOff(pending func(field string) bool) *waiter {
	for _, w := range q.waiters {
		if w.state == parked && !w.owesUndo && !pending(w.field) {
			return w
		}
	}
	return nil
}

func (w *waiter) wake() {
	select {
	case w.nudge <- struct{}{}:
	default:
	}
}
