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
	// y: how local goroutines give way after a hand-off streak's end.
	y yield
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
