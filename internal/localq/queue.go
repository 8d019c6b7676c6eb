// Package localq is the local wait queue of one lock in one client: who of
// the client's waiting goroutines tries, who is handed or passed the lock,
// and when local goroutines give way. It asks nothing of Redis; the lock
// engine (internal/engine) sends the scripts and tells the queue what they
// answered.
//
// A waiter never asks Redis while another owner of its own client holds the
// lock (that owner's unlock will hand it over or publish), so a client sends
// at most one acquire attempt per release instead of one per waiting
// goroutine. The unlock of a holder that finds a parked waiter hands the
// lock over in its own script: one round trip from holder to next holder.
// After MaxHandOffStreak hand-offs in a row the lock is released for real,
// so waiters of other processes (and Java peers) get their turn.
package localq

import (
	"context"
	"sync"
	"time"
)

// MaxHandOffStreak is how many hand-offs in a row a lock may see before a
// release is a real one.
const MaxHandOffStreak = 16

// Queue is one lock's local wait state, shared by every handle of the lock
// in one client. H is the engine's hold, which a pass fills (PassTo).
type Queue[H any] struct {
	mu      sync.Mutex
	waiters []*Waiter[H] // arrival order
	pending int          // hand-offs whose new holder has not registered its hold yet
	streak  int          // hand-offs since the last real release
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

// New returns an empty queue.
func New[H any]() *Queue[H] { return &Queue[H]{} }

// State is where a waiter stands.
type State uint8

const (
	// Trying: the waiter is running its own acquire attempt.
	Trying State = iota
	// Parked: sleeping; an unlock may pick it for a hand-off.
	Parked
	// Handing: an unlock is running the hand-off script for it.
	Handing
	// Handed: the lock is its own; it only has to take it.
	Handed
	// Unknown: a hand-off to it failed in transit; whether it holds the
	// lock must be read from Redis.
	Unknown
)

// Waiter is one goroutine waiting in Lock or TryLock. Its exported fields
// are set before it is queued; a pass changes Field (Passed).
type Waiter[H any] struct {
	Field    string
	Lease    time.Duration
	Watchdog bool
	// Hold and Base are the hold the waiter fills and the context whose
	// values it keeps, for a release that passes its hold on (PassTo).
	Hold H
	Base context.Context

	state State     // guarded by Queue.mu
	start time.Time // when the hand-off script was sent
	value int64     // the hand-off's value; guarded by Queue.mu
	// owesUndo: a try of its own lost its reply and the undo of that try
	// has not gone through yet. It is not handed the lock meanwhile: the
	// undo, sent later, would release the lock handed to it. Guarded by
	// Queue.mu.
	owesUndo bool
	nudge    chan struct{}
	// passed: a release passed its hold on to the waiter; the hold is
	// registered and the waiter only has to return it. Guarded by
	// Queue.mu once the waiter is queued.
	passed bool
}

// NewWaiter returns w parked, owing an undo or not (see Tried).
func NewWaiter[H any](w Waiter[H], owesUndo bool) *Waiter[H] {
	w.state, w.owesUndo, w.nudge = Parked, owesUndo, make(chan struct{}, 1)
	return &w
}

// Nudge receives when the waiter is to look at its turn again (WakeUp).
func (w *Waiter[H]) Nudge() <-chan struct{} { return w.nudge }

// Start is when the release that handed w the lock sent its script: its
// lease counts from then. It is set once w is Handed or Unknown.
func (w *Waiter[H]) Start() time.Time { return w.start }

// Park queues w, a waiter from NewWaiter.
func (q *Queue[H]) Park(w *Waiter[H]) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.add(w)
}

// States lists the queued waiters' states in arrival order, for tests and
// diagnostics.
func (q *Queue[H]) States() []State {
	q.mu.Lock()
	defer q.mu.Unlock()
	out := make([]State, len(q.waiters))
	for i, w := range q.waiters {
		out[i] = w.state
	}
	return out
}

func (q *Queue[H]) add(w *Waiter[H]) { q.waiters = append(q.waiters, w) }

func (q *Queue[H]) remove(w *Waiter[H]) {
	for i, x := range q.waiters {
		if x == w {
			q.waiters = append(q.waiters[:i], q.waiters[i+1:]...)
			return
		}
	}
}

// firstParked returns the oldest parked waiter, or nil. A waiter backing
// off after a failed try counts: a wake-up ends its back-off.
func (q *Queue[H]) firstParked() *Waiter[H] {
	for _, w := range q.waiters {
		if w.state == Parked {
			return w
		}
	}
	return nil
}

// firstHandOff returns the oldest parked waiter the lock may be handed
// to, or nil: one that owes no undo (Waiter.owesUndo), per its own record
// and per the undos running in the background (pending).
func (q *Queue[H]) firstHandOff(pending func(field string) bool) *Waiter[H] {
	for _, w := range q.waiters {
		if w.state == Parked && !w.owesUndo && !pending(w.Field) {
			return w
		}
	}
	return nil
}

func (w *Waiter[H]) wake() {
	select {
	case w.nudge <- struct{}{}:
	default:
	}
}

// HandOffReady reports whether a release would find a parked waiter to
// hand the lock to, given the undos running (undoPending); tests wait on
// it.
func (q *Queue[H]) HandOffReady(undoPending func(field string) bool) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.firstHandOff(undoPending) != nil
}

// SetStreak sets how many hand-offs in a row the lock has seen; tests use
// it to reach a streak's end (MaxHandOffStreak: the next release is a real
// one) at once, and to start afresh.
func (q *Queue[H]) SetStreak(n int) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.streak = n
}
