package renewal

import (
	"fmt"
	"reflect"
	"time"
)

// Lease states; guarded by Wheel.mu.
const (
	stateScheduled uint8 = iota // linked in a bucket
	stateInFlight               // in exactly one renewal round, linked at its loss tick
	stateDone                   // cancelled, lost or dropped by Close
)

// Lease is one tracked lease, returned by Add; its handle for Reset and
// Cancel.
type Lease struct {
	w      *Wheel
	key    string
	owner  string
	data   any
	kind   Kind
	onLost func(error)
	slot   int

	// Guarded by w.mu. Times are nanoseconds since w.epoch so that they
	// compare on the monotonic clock and cost 8 bytes.
	state      uint8
	linked     bool // in a bucket: scheduled, or in flight with its loss tick
	reset      bool // Reset while in flight: the round's answer is stale
	ttl        time.Duration
	validUntil int64 // lease known valid until then
	lossAt     int64 // validUntil less the safety margin: reported lost from then on
	pending    int64 // next due time from set; kept for a round that a Reset overtook
	tick       int64 // absolute tick of the bucket it is linked in
	prev, next *Lease
	lastErr    error // last renewal error, reported if the lease runs out
	fixed      bool  // Fix stopped its renewal: a fixed lease from then on
	capped     bool  // validUntil is never later than cap (Cap)
	cap        int64
	// roundDone is closed once go-redis has ended the pipeline of the last
	// round the lease was in (Fix waits for it).
	roundDone chan struct{}

	// roundTTL is the TTL the current round renews with: set by collect, read
	// by that round without w.mu, because Reset may change ttl meanwhile.
	roundTTL time.Duration
}

// renews reports whether the wheel renews the lease (a watchdog lease that
// Fix has not stopped). w.mu held.
func (l *Lease) renews() bool { return l.kind != nil && !l.fixed }

// Key returns Spec.Key.
func (l *Lease) Key() string { return l.key }

// Owner returns Spec.Owner.
func (l *Lease) Owner() string { return l.owner }

// Data returns Spec.Data.
func (l *Lease) Data() any { return l.data }

// Add starts tracking a lease. It panics on TTL <= 0, a nil OnLost, a
// non-comparable Kind, or a Kind without Config.Client, since each is a
// programming error that would otherwise surface on a background goroutine.
// After Close it returns a lease that is already cancelled.
func (w *Wheel) Add(spec Spec) *Lease {
	if spec.TTL <= 0 {
		panic("renewal: Add with TTL <= 0")
	}
	if spec.OnLost == nil {
		panic("renewal: Add with nil OnLost")
	}
	if spec.Kind != nil {
		if w.cfg.Client == nil {
			panic("renewal: watchdog lease on a Wheel without Config.Client")
		}
		if !reflect.TypeOf(spec.Kind).Comparable() {
			panic(fmt.Sprintf("renewal: Kind type %T is not comparable", spec.Kind))
		}
	}
	l := &Lease{
		w:      w,
		key:    spec.Key,
		owner:  spec.Owner,
		data:   spec.Data,
		kind:   spec.Kind,
		onLost: spec.OnLost,
	}
	if spec.Kind != nil && w.cfg.Slot != nil {
		l.slot = w.cfg.Slot(spec.Key)
	}
	start := w.now()
	if !spec.Start.IsZero() {
		start = int64(spec.Start.Sub(w.epoch))
	}
	if !spec.Cap.IsZero() {
		l.capped, l.cap = true, int64(spec.Cap.Sub(w.epoch))
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		l.state = stateDone
		return l
	}
	w.n++
	w.set(l, start, spec.TTL)
	w.schedule(l, l.pending)
	return l
}

// set records that the lease was (re)applied at start with ttl and computes
// its next due time into l.pending. A cap bounds the validity.
func (w *Wheel) set(l *Lease, start int64, ttl time.Duration) {
	l.ttl = ttl
	l.validUntil = start + int64(ttl)
	if l.capped && l.validUntil > l.cap {
		l.validUntil = l.cap
	}
	l.lossAt = l.validUntil - int64(w.marginOf(ttl))
	l.lastErr = nil
	if !l.renews() {
		l.pending = l.lossAt
	} else {
		l.pending = start + int64(ttl/3)
	}
}

// marginOf is Margin with the wheel's settings.
func (w *Wheel) marginOf(ttl time.Duration) time.Duration {
	return Margin(ttl, w.margin, time.Duration(w.tick))
}

// Reset records that the lease was re-taken or extended: the request sent at
// start set ttl (a re-entrant acquire, a PEXPIRE on a partial unlock). The
// lease is valid until start+ttl (or its cap, if earlier) and next renewed
// at start+ttl/3 (a fixed lease runs out at start+ttl); a zero start means
// now, as in Spec. If a renewal round for the lease is in flight, its
// answer is discarded in favour of this newer information. No-op for a
// cancelled or lost lease, or after Close.
func (w *Wheel) Reset(l *Lease, start time.Time, ttl time.Duration) {
	if ttl <= 0 {
		panic("renewal: Reset with TTL <= 0")
	}
	if l.w != w {
		panic("renewal: Reset of a lease from another Wheel")
	}
	s := w.now()
	if !start.IsZero() {
		s = int64(start.Sub(w.epoch))
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed || l.state == stateDone {
		return
	}
	w.set(l, s, ttl)
	switch l.state {
	case stateInFlight:
		l.reset = true // the round reschedules it at l.pending
		w.unlink(l)
		w.linkLoss(l)
	case stateScheduled:
		w.unlink(l)
		w.schedule(l, l.pending)
	}
}

// Fix stops renewing a watchdog lease for good: from now on it is a fixed
// lease that runs out at its current validity (or as a later Reset says),
// and its end is reported with ErrFixedLeaseEnded. A renewal round for it in
// flight has its answer discarded, but its command may still be on its way
// to Redis: Fix returns a channel that is closed once go-redis has ended
// that round's pipeline (nil when no round of the lease is unfinished), so
// that a caller about to set the lease itself can send after it. Fixing a
// fixed lease changes nothing. It reports false for a cancelled or lost
// lease, or after Close.
func (w *Wheel) Fix(l *Lease) (<-chan struct{}, bool) {
	if l.w != w {
		panic("renewal: Fix of a lease from another Wheel")
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed || l.state == stateDone {
		return nil, false
	}
	var busy <-chan struct{}
	if l.roundDone != nil {
		select {
		case <-l.roundDone:
		default:
			busy = l.roundDone
		}
	}
	if !l.renews() {
		return busy, true
	}
	l.fixed = true
	l.pending = l.lossAt
	switch l.state {
	case stateInFlight:
		// The round would renew a lease that is fixed now: its answer is
		// stale (the lease stays linked at its loss tick meanwhile).
		l.reset = true
	case stateScheduled:
		w.unlink(l)
		w.schedule(l, l.pending)
	}
	return busy, true
}

// Cap bounds the lease's validity: from now on it is never counted valid
// past until, whatever Reset and renewals say, and a validity later than
// until now is brought forward to it (its loss is then reported before
// until, by the safety margin of its TTL). A zero until removes the bound;
// the validity stays as it is until the next Reset or renewal. No-op for
// a cancelled or lost lease, or after Close.
func (w *Wheel) Cap(l *Lease, until time.Time) {
	if l.w != w {
		panic("renewal: Cap of a lease from another Wheel")
	}
	c := int64(until.Sub(w.epoch))
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed || l.state == stateDone {
		return
	}
	if until.IsZero() {
		l.capped = false
		return
	}
	l.capped, l.cap = true, c
	if l.validUntil <= c {
		return
	}
	l.validUntil = c
	l.lossAt = c - int64(w.marginOf(l.ttl))
	if !l.renews() {
		l.pending = l.lossAt
	}
	w.unlink(l)
	switch l.state {
	case stateInFlight:
		w.linkLoss(l)
	case stateScheduled:
		w.schedule(l, l.pending)
	}
}

// Cancel stops tracking the lease. It returns true if the lease was active;
// then OnLost is never called for it, even if a renewal round for it is in
// flight (that round's answer is ignored). False means it had already been
// cancelled, dropped by Close, or lost, in which case OnLost has been or is
// being called: like time.Timer.Stop, Cancel does not wait for it, so that
// OnLost itself may call Cancel.
func (w *Wheel) Cancel(l *Lease) bool {
	if l.w != w {
		panic("renewal: Cancel of a lease from another Wheel")
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed || l.state == stateDone {
		return false
	}
	w.unlink(l)
	l.state = stateDone
	l.reset = false
	w.n--
	return true
}
