package holds

import "time"

// An extend sets an owner's lease on a key to a new TTL (Hold.Extend, a
// multi-lock setting its members' final lease). The registry keeps the
// owner's lease in step with what Redis may have, by this process's clock:
//
//   - FixLease first stops renewing it for good (an extended lease is a
//     fixed lease), and says when no renewal sent before can still be
//     unanswered, so that the extend is sent after it;
//   - Extending, just before the request is sent at start, bounds the
//     lease by start+ttl while the outcome is unknown: Redis may run the
//     request any time from start on, and the lease then ends no earlier
//     than start+ttl, but no later lease write of ours may be counted on
//     past that;
//   - ExtendSettled records the outcome: applied (the lease now runs
//     until start+ttl), not applied (the lease keeps the earlier end), or
//     unknown (the request may still run, after anything sent since: the
//     bound stays for the rest of the owner's hold).

// Extension is one extend in flight, from Extending to ExtendSettled.
type Extension struct {
	o      *owned
	start  time.Time
	ttl    time.Duration
	gen    uint64
	writes uint64
}

// ExtendOutcome is what became of an extend's request.
type ExtendOutcome int

const (
	// ExtendApplied: Redis answered that it set the lease.
	ExtendApplied ExtendOutcome = iota
	// ExtendNotApplied: it did not run, or ran but is not to be counted on
	// (no replica acknowledged it). The lease keeps the earlier end.
	ExtendNotApplied
	// ExtendUnknown: no reply; it may still run later.
	ExtendUnknown
)

// capUntil is the bound of o's lease: the earlier of the lasting cap and
// the end of the extend in flight; zero when there is none. hs.mu held.
func (o *owned) capUntil() time.Time {
	c := o.cap
	if o.pending != nil {
		end := o.pending.start.Add(o.pending.ttl)
		if c.IsZero() || end.Before(c) {
			c = end
		}
	}
	return c
}

// record returns the owner's record h is one of the holds of, or nil when
// h has ended. hs.mu held.
func (hs *Registry) record(h *Hold) *owned {
	o := hs.m[holdKey{h.key, h.owner}]
	if o == nil || o.lease == nil {
		return nil
	}
	for _, x := range o.holds {
		if x == h {
			return o
		}
	}
	return nil
}

// FixLease stops renewing the lease of h's owner for good (see
// renewal.Wheel.Fix): the owner's holds of h's key are fixed-lease holds
// from now on, until a re-entry takes the lock with the watchdog again. The
// channel is closed once no renewal of the lease sent before is unfinished
// (nil: none is). It reports false when h has ended or its lease has just
// ended (its holds are being told).
func (r *Registry) FixLease(h *Hold) (<-chan struct{}, bool) {
	hs := r
	hs.mu.Lock()
	o := hs.record(h)
	if o != nil {
		o.renews = false
	}
	hs.mu.Unlock()
	if o == nil {
		return nil, false
	}
	return r.wheel.Fix(o.lease)
}

// Extending records an extend of the lease of h's owner to ttl by a request
// about to be sent at start: until ExtendSettled the lease ends no later
// than start+ttl. One extend of an owner's lease is in flight at a time
// (the caller orders them). It reports false when h has ended.
func (r *Registry) Extending(h *Hold, start time.Time, ttl time.Duration) (*Extension, bool) {
	hs := r
	hs.mu.Lock()
	defer hs.mu.Unlock()
	o := hs.record(h)
	if o == nil {
		return nil, false
	}
	x := &Extension{o: o, start: start, ttl: ttl, gen: o.gen, writes: o.writes}
	o.pending = x
	r.wheel.Cap(o.lease, o.capUntil())
	return x, true
}

// ExtendSettled records the outcome of x. An applied extend re-times the
// lease to start+ttl (its end bounded by a lasting cap), and a partial
// unlock re-applies ttl from then on, unless another lease write of the
// owner (a re-entry, a partial unlock) was recorded since Extending: the
// order of the two in Redis is unknown, so the lease keeps the earlier
// end. It reports false when the owner's holds ended meanwhile.
func (r *Registry) ExtendSettled(x *Extension, out ExtendOutcome) bool {
	hs := r
	hs.mu.Lock()
	defer hs.mu.Unlock()
	o := x.o
	if hs.m[holdKey{o.key, o.owner}] != o {
		return false
	}
	if o.pending == x {
		o.pending = nil
	}
	if out == ExtendUnknown {
		if end := x.start.Add(x.ttl); o.cap.IsZero() || end.Before(o.cap) {
			o.cap = end
		}
	}
	r.wheel.Cap(o.lease, o.capUntil())
	if out == ExtendApplied && o.gen == x.gen && o.writes == x.writes {
		o.ttl = x.ttl
		o.writes++
		r.wheel.Reset(o.lease, x.start, x.ttl)
	}
	return true
}

// ExtendLost ends the owner's holds with cause: Redis answered x that the
// owner holds the lock no more. Holds of a later acquisition are left
// alone.
func (r *Registry) ExtendLost(x *Extension, cause error) {
	hs := r
	hs.mu.Lock()
	if o := x.o; o.pending == x {
		o.pending = nil
	}
	hs.mu.Unlock()
	r.lose(x.o, cause)
}
