package multilock

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/lockable"
)

// Hold is one acquisition of the set. Keep it: Unlock releases every member
// it holds, once. It is safe for concurrent use.
type Hold struct {
	// again: an Unlock left members held whose release Redis refused
	// (keepRefused); the next Unlock releases only them.
	again   bool
	m       *Lock
	owner   int64
	members []held
	ctx     context.Context
	cancel  context.CancelCauseFunc
	timer   *time.Timer
	// validUntil is when timer ends a RedLock's hold (zero: no timer).
	validUntil time.Time
	stops      []func() bool
	// late, for a RedLock, is closed once the tries its acquisition left
	// running (members that had not answered when the quorum was
	// reached) have ended and given back what they took; nil if none.
	late <-chan struct{}

	releasing atomic.Bool
	extending sync.Mutex // one Extend at a time
	mu        sync.Mutex
	lost      int // members whose hold ended before Unlock
}

func (m *Lock) newHold(parent context.Context, owner int64, hs []held, validUntil time.Time) *Hold {
	h := &Hold{m: m, owner: owner, members: hs}
	h.ctx, h.cancel = context.WithCancelCause(context.WithoutCancel(parent))
	h.stops = make([]func() bool, 0, len(hs))
	for _, x := range hs {
		mctx := x.h.Context()
		name := x.l.Name()
		h.stops = append(h.stops, context.AfterFunc(mctx, func() { h.memberEnded(name, context.Cause(mctx)) }))
	}
	if !validUntil.IsZero() {
		h.mu.Lock()
		h.setValidity(validUntil, "the RedLock's validity, its lease less the acquisition time and the clock drift allowance, ended")
		h.mu.Unlock()
	}
	return h
}

// memberEnded is told that a member's hold ended with cause.
func (h *Hold) memberEnded(name string, cause error) {
	if h.releasing.Load() {
		return // our own Unlock
	}
	if errors.Is(cause, context.Canceled) {
		// Nobody else holds the member hold to release it; count it lost.
		cause = core.Errorf(core.ErrLockLost, "it was released on its own")
	}
	if errors.Is(cause, core.ErrLeaseExpired) && !errors.Is(cause, core.ErrLockLost) {
		// The members' fixed lease ran out, as the set's caller asked.
		h.cancel(h.m.expired(fmt.Sprintf("the fixed lease of member %q ran out", name)))
		return
	}
	if !h.m.red {
		h.cancel(h.m.lost("a member ended: %w", memberErr(name, cause)))
		return
	}
	h.mu.Lock()
	h.lost++
	left := len(h.members) - h.lost
	h.mu.Unlock()
	if left < h.m.Quorum() {
		h.cancel(h.m.lost("%d of %d members held, fewer than the quorum of %d; a member ended: %w",
			left, len(h.m.members), h.m.Quorum(), memberErr(name, cause)))
	}
}

// Unlock releases every member this hold holds and waits for them: the
// members of different clients in parallel, those of one client in the
// set's order; it works with a done ctx (each release is bounded by its client's
// Timeout). A second Unlock sends nothing and returns an error wrapping
// ErrNotOwner. If the hold had ended (lost, client closed), the members
// still held are released all the same and the cause is returned. Errors
// of members that could not be released are joined; a RedLock reports none
// for members it had already lost.
func (h *Hold) Unlock(ctx context.Context) error {
	if h == nil || h.m == nil {
		return core.Errorf(core.ErrNotOwner, "unlock: not an acquired hold (a nil or zero Hold)")
	}
	if ctx == nil {
		// Refused before the hold is marked released.
		return h.m.opErr("unlock", core.ErrNilContext)
	}
	if h.m.rt == nil {
		return h.unlock(ctx)
	}
	octx, ob := h.m.rt.Events().StartRelease(ctx, h.m.kind(), h.m.name)
	err := h.unlock(octx)
	ob.End(err, true, false)
	return err
}

func (h *Hold) unlock(ctx context.Context) error {
	if !h.releasing.CompareAndSwap(false, true) {
		return h.m.opErr("unlock", core.Errorf(core.ErrNotOwner, "this hold was already released"))
	}
	ended := h.Err()
	h.mu.Lock()
	if h.timer != nil {
		h.timer.Stop()
	}
	h.mu.Unlock()
	// From here on a member's end is our own release (memberEnded does
	// nothing once releasing is set): its watch is stopped before the
	// release ends the member, which would otherwise run it for nothing
	// on a goroutine of its own.
	for _, stop := range h.stops {
		stop()
	}
	var aliveBuf [8]bool
	alive := aliveBuf[:0]
	if len(h.members) > len(aliveBuf) {
		alive = make([]bool, 0, len(h.members))
	}
	live := 0
	for _, x := range h.members {
		ok := x.h.Err() == nil
		alive = append(alive, ok)
		if ok {
			live++
		}
	}
	errs := h.m.unlockAll(ctx, h.members)
	awaitLate(h.late)
	h.cancel(context.Canceled)
	again := h.again
	if refused := h.keepRefused(errs); refused != nil {
		return h.m.opErr("unlock", refused)
	}
	if again {
		// This Unlock released what an earlier one left held: the hold's
		// own end was that earlier Unlock.
		return h.m.opErr("unlock", errors.Join(errs...))
	}
	if ended != nil {
		return h.m.opErr("unlock", ended)
	}
	if h.m.red && live < h.m.Quorum() {
		// The losses had not reached the hold yet (they are reported
		// asynchronously, and our Unlock silenced them): the quorum was lost
		// all the same.
		return h.m.opErr("unlock", fmt.Errorf("%w: %d of %d members held at Unlock, fewer than the quorum of %d",
			core.ErrLockLost, live, len(h.m.members), h.m.Quorum()))
	}
	var failed []error
	for i, err := range errs {
		if err != nil && (alive[i] || !h.m.red) {
			failed = append(failed, err)
		}
	}
	return h.m.opErr("unlock", errors.Join(failed...))
}

// keepRefused keeps, after an Unlock, the members whose release Redis
// refused before it ran (core.ErrReleaseRefused): they are still held, and
// the next Unlock releases them. It returns the error that says so, nil
// when no release was refused.
func (h *Hold) keepRefused(errs []error) error {
	var kept []held
	var failed []error
	for i, err := range errs {
		if errors.Is(err, core.ErrReleaseRefused) {
			kept = append(kept, h.members[i])
			failed = append(failed, err)
		}
	}
	if kept == nil {
		return nil
	}
	h.members, h.stops, h.again = kept, nil, true
	h.releasing.Store(false)
	return core.Errorf(core.ErrReleaseRefused, "%d of %d members are still held (Redis refused their release); Unlock again to release them: %w",
		len(kept), len(errs), errors.Join(failed...))
}

// Extend sets the lease of every member to lease, counted from now, as
// locks.Hold's Extend does for one lock: in Redis, only while the owner
// holds the member, with replica sync; in each member's loss signal; and a
// member held with the watchdog becomes a fixed-lease hold for good. The
// members of different clients are extended in parallel, those of one
// client in the set's order.
//
// A MultiLock needs every member extended: when one fails (it is held no
// more, no replica acknowledged its write, no reply, ctx ended), the hold
// ends lost (Done is closed, Err wraps ErrLockLost) and the error wraps
// ErrLockLost and names the member and its error; Unlock it to release the
// members still held. A RedLock extends the members it holds and needs a
// quorum of them extended: its validity is then recomputed as for an
// acquisition (the new lease less the time the extend took and the clock
// drift allowance; its Done fires at that end), and the members whose
// extend failed keep the earlier of their old end and the new one, so
// losing them later costs the hold nothing. Fewer than a quorum, or no
// validity left, ends the hold lost, and the error says so.
//
// Nothing is sent for a lease below 1ms (ErrInvalidArgument), a hold that
// ended (ErrNotOwner after Unlock; the loss or ErrClosed otherwise) or a ctx
// done at the call (its cause; the hold is unchanged).
func (h *Hold) Extend(ctx context.Context, lease time.Duration) error {
	if h == nil || h.m == nil {
		return core.Errorf(core.ErrNotOwner, "extend: not an acquired hold (a nil or zero Hold)")
	}
	m := h.m
	if ctx == nil {
		return m.opErr("extend", core.ErrNilContext)
	}
	if lease < time.Millisecond {
		return m.opErr("extend", fmt.Errorf("%w: the lease must be at least 1ms, got %v", core.ErrInvalidArgument, lease))
	}
	h.extending.Lock()
	defer h.extending.Unlock()
	if err := h.extendable(ctx); err != nil {
		return m.opErr("extend", err)
	}
	targets := h.members
	if m.red {
		// The members it still holds: a RedLock may have lost a minority.
		targets = make([]held, 0, len(h.members))
		for _, x := range h.members {
			if x.h.Err() == nil {
				targets = append(targets, x)
			}
		}
	}
	start := time.Now()
	errs := m.perClient(targets, memberOp{ctx: ctx, lease: lease})
	var failed []error
	for i, err := range errs {
		if err != nil {
			failed = append(failed, memberErr(targets[i].l.Name(), err))
		}
	}
	var cause error
	switch {
	case m.red:
		cause = h.redExtended(len(targets), failed, start, lease)
	case len(failed) > 0:
		cause = fmt.Errorf("%w: not every member could be extended: %w", core.ErrLockLost, errors.Join(failed...))
	}
	if cause != nil {
		h.cancel(m.opErr("extend", cause))
		return m.opErr("extend", cause)
	}
	return nil
}

// extendable returns why Extend sends nothing: the hold was released or
// has ended, or ctx is done (the hold is then unchanged).
func (h *Hold) extendable(ctx context.Context) error {
	if h.releasing.Load() {
		return core.Errorf(core.ErrNotOwner, "this hold was already released")
	}
	if err := h.Err(); err != nil {
		return err
	}
	if ctx.Err() != nil {
		return context.Cause(ctx) // nothing sent, nothing changed
	}
	return nil
}

// redExtended settles a RedLock's Extend that began at start and sent to
// tried members, of which failed failed: it returns why the hold ends,
// or nil after it set the hold's new validity.
func (h *Hold) redExtended(tried int, failed []error, start time.Time, lease time.Duration) error {
	m := h.m
	if ok := tried - len(failed); ok < m.Quorum() {
		cause := fmt.Errorf("%w: %d of %d members extended, fewer than the quorum of %d", core.ErrLockLost, ok, len(m.members), m.Quorum())
		if len(failed) > 0 {
			cause = fmt.Errorf("%w: %w", cause, errors.Join(failed...))
		}
		return cause
	}
	// As after an acquisition: every member's lease was set by a request
	// sent after start.
	validUntil := validFrom(start, lease)
	if !time.Now().Before(validUntil) {
		return fmt.Errorf("%w: the extend took longer than the lease leaves valid", core.ErrLeaseExpired)
	}
	h.mu.Lock()
	h.setValidity(validUntil, "the RedLock's validity, its lease less the extend's time and the clock drift allowance, ended")
	h.mu.Unlock()
	return nil
}

// setValidity makes validUntil the end of the hold, which then ends
// expired for why; h.mu is held.
func (h *Hold) setValidity(validUntil time.Time, why string) {
	if h.timer != nil {
		h.timer.Stop()
	}
	h.validUntil = validUntil
	h.timer = time.AfterFunc(time.Until(validUntil), func() {
		h.cancel(h.m.expired(why))
	})
}

// validFrom is when a RedLock whose members' leases were set by requests
// sent after start stops being valid: the earliest any member can expire,
// less the clock drift allowance, antirez's 1% of the lease + 2ms.
func validFrom(start time.Time, lease time.Duration) time.Time {
	return start.Add(lease - lease/100 - 2*time.Millisecond)
}

// extendMember sets the lease of a member hold: its Extend, or for a
// lockable.Hold without one its Expire, which sets the lease likewise.
func extendMember(ctx context.Context, h lockable.Hold, lease time.Duration) error {
	if e, ok := h.(interface {
		Extend(context.Context, time.Duration) error
	}); ok {
		return e.Extend(ctx, lease)
	}
	return h.Expire(ctx, lease)
}

// Done is closed when the hold ends: after Unlock, or when the set is lost
// (see Err). A lost hold's Done is closed before a member lease can have
// run out in Redis, by this process's clock.
func (h *Hold) Done() <-chan struct{} { return h.Context().Done() }

// Err is nil while the hold lasts. Then it is context.Canceled after
// Unlock, or an error wrapping ErrLockLost when a member (for a RedLock: a
// quorum, or the validity) was lost, or ErrClosed when a member's client
// closed.
func (h *Hold) Err() error {
	if h == nil || h.ctx == nil {
		return errNotAcquired
	}
	if h.ctx.Err() == nil {
		return nil
	}
	return context.Cause(h.ctx)
}

// Context returns a context that is done when the hold ends, with Err as
// its cause; it carries the values of the context given to Lock, not its
// cancellation. Run the critical section under it.
func (h *Hold) Context() context.Context {
	if h == nil || h.ctx == nil {
		return notAcquired
	}
	return h.ctx
}

// errNotAcquired is the Err of a nil or zero Hold.
var errNotAcquired = core.Errorf(core.ErrNotOwner, "not an acquired hold (a nil or zero Hold)")

// notAcquired is the Context of a nil or zero Hold: done, with
// errNotAcquired as its cause.
var notAcquired = func() context.Context {
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(errNotAcquired)
	return ctx
}()

// Owner returns the owner id every member was taken by.
func (h *Hold) Owner() int64 {
	if h == nil {
		return 0
	}
	return h.owner
}

// Held returns the names of the members this hold took: all of them for a
// MultiLock, at least a quorum for a RedLock.
func (h *Hold) Held() []string {
	if h == nil {
		return nil
	}
	out := make([]string, len(h.members))
	for i, x := range h.members {
		out[i] = x.l.Name()
	}
	return out
}
