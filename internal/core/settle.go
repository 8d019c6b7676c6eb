package core

import (
	"context"
	"sync/atomic"
	"time"
)

// A call that writes and must be compensated when its caller gives up (an
// acquire, undone when its caller has gone) cannot let the caller's context
// cut its exchange short: go-redis then stops reading, but the command may
// already be on its way and run later, after the compensation sent on
// another connection (Redis orders one connection's commands, never two).
// Settle therefore sends such a call on a context the caller cannot cancel
// and, when the caller's context ends first, hands the caller a Pending
// whose outcome the compensation waits for: the reply, or go-redis giving
// up on it (its ReadTimeout, a broken connection).

// Pending is the outcome of a call whose caller stopped waiting for it.
type Pending[T any] struct {
	done chan struct{}
	v    T
	err  error
}

// Done is closed when the call has ended.
func (p *Pending[T]) Done() <-chan struct{} { return p.done }

// Result returns the call's outcome; call it after Done is closed.
func (p *Pending[T]) Result() (T, error) { return p.v, p.err }

// Wait waits for the call's outcome until ctx is done, which reports false.
func (p *Pending[T]) Wait(ctx context.Context) (T, error, bool) {
	select {
	case <-p.done:
		return p.v, p.err, true
	case <-ctx.Done():
		var zero T
		return zero, nil, false
	}
}

// Settle runs call (at most once) and returns its outcome, or, when ctx
// ends before the outcome is known, an *AbandonedError and the Pending the
// outcome arrives on. The call never sees ctx's cancellation or deadline:
// go-redis bounds it by its own timeouts (the pool's, the dial's, its
// ReadTimeout), so it ends with a reply or with go-redis giving up, never
// half-read. Off the caller's goroutine it is cancelled only when Close has
// stopped waiting (Stopped): a try still waiting for a connection then is
// never sent, since nothing may be sent once Close has returned.
//
// A call under a context that cannot end early enough to matter runs on
// the caller's goroutine, as Runtime.NeedsBound decides: a context without
// Done, or one whose deadline lies beyond go-redis' ReadTimeout. It gets
// the context without its cancellation, so that neither go-redis (with
// ContextTimeoutEnabled, it would cut the read at the deadline) nor a
// nested bound (NeedsBound, asked again later, when the deadline may be
// near) can leave its outcome unknown.
func Settle[T any](rt *Runtime, ctx context.Context, call func(context.Context) (T, error)) (T, error, *Pending[T]) {
	if cctx, pin, ok := rt.Inline(ctx); ok {
		v, err := call(cctx)
		pin.Done()
		return v, err, nil
	}
	p := &Pending[T]{done: make(chan struct{})}
	go func() {
		ReserveStack(0)
		cctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
		stop := context.AfterFunc(rt.Stopped(), cancel)
		p.v, p.err = call(cctx)
		stop()
		cancel()
		close(p.done)
	}()
	select {
	case <-p.done:
		return p.v, p.err, nil
	case <-ctx.Done():
		// An outcome racing ctx wins: it is the real one.
		select {
		case <-p.done:
			return p.v, p.err, nil
		default:
		}
		var zero T
		return zero, &AbandonedError{Cause: context.Cause(ctx)}, p
	}
}

// Inline reports whether Settle would run a call under ctx on the caller's
// goroutine, and with which context: a caller on the hot path asks first and
// builds no closure when it may. It calls pin.Done after the call (pin may
// be nil).
//
// On a single node a call under a deadline nearer than go-redis'
// ReadTimeout (but at least minPinned away) runs inline too when a
// dedicated connection that can be bound by ctx (see boundConn) is free:
// the context returned pins it for the call's first script (the acquire
// whose outcome must be known before it is compensated), so that it cannot
// fall back to Bounded's goroutine, whose outcome, abandoned, would be
// compensated before it is known. As on Settle's goroutine, the call runs
// without ctx's cancellation and deadline; only that script is bound by the
// deadline. Cut there, it comes back as an *AbandonedError without a
// Pending, and the caller resolves it as a lost reply.
func (rt *Runtime) Inline(ctx context.Context) (context.Context, *Pin, bool) {
	if ctx.Done() == nil {
		return ctx, nil, true
	}
	if rt.needsBound(ctx) {
		deadline, ok := limitOf(ctx)
		if !ok || time.Until(deadline) < minPinned {
			return nil, nil, false
		}
		if dc := rt.reserve(ctx); dc != nil {
			pin := &Pin{rt: rt, ctx: ctx}
			pin.dc.Store(dc)
			return context.WithValue(context.WithoutCancel(ctx), pinKey{}, pin), pin, true
		}
		return nil, nil, false
	}
	return context.WithoutCancel(ctx), nil, true
}

// minPinned is the least time before its deadline a call must have to run
// inline on a pinned connection (see Inline). A script cut at the deadline
// costs its connection (its reply is still to come). A deadline of a few
// milliseconds may well pass during a normal round trip: cut there, calls
// made go-redis dial all the time, and other callers then got "context
// canceled" from its pool (TestGiveUpLeavesNothingBehind). Such a call
// keeps Settle's goroutine, which reads the reply and keeps the connection.
const minPinned = 50 * time.Millisecond

// Pin keeps a bound dedicated connection for the first script of one
// inline call (see Inline).
type Pin struct {
	rt  *Runtime
	ctx context.Context               // the caller's: its deadline bounds the script
	dc  atomic.Pointer[dedicatedConn] // nil once taken or given back
}

type pinKey struct{}

// Done gives the pinned connection back.
func (p *Pin) Done() {
	if p == nil {
		return
	}
	if dc := p.dc.Swap(nil); dc != nil {
		p.rt.conns.put(dc, nil)
	}
}

// needsBound is NeedsBound whatever the go-redis client's
// ContextTimeoutEnabled: whether ctx may end before go-redis' ReadTimeout
// would end a silent call.
func (rt *Runtime) needsBound(ctx context.Context) bool {
	if rt.readTimeout <= 0 {
		if ctx.Done() != nil {
			return true
		}
		_, ok := limitOf(ctx) // a bound set by Within
		return ok
	}
	deadline, ok := limitOf(ctx)
	return ok && time.Until(deadline)+boundSlack < rt.readTimeout
}
