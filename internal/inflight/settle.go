package inflight

import (
	"context"

	"github.com/goredisson/redisson/internal/conns"
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
// stopped waiting (Drained): a try still waiting for a connection then is
// never sent, since nothing may be sent once Close has returned.
//
// A call under a context that cannot end early enough to matter runs on
// the caller's goroutine, as conns.Pool.NeedsBound decides: a context without
// Done, or one whose deadline lies beyond go-redis' ReadTimeout. It gets
// the context without its cancellation, so that neither go-redis (with
// ContextTimeoutEnabled, it would cut the read at the deadline) nor a
// nested bound (NeedsBound, asked again later, when the deadline may be
// near) can leave its outcome unknown.
func Settle[T any](t *Tracker, ctx context.Context, call func(context.Context) (T, error)) (T, *Pending[T], error) {
	if cctx, pin, ok := t.cfg.Conns.Inline(ctx, ""); ok {
		v, err := call(cctx)
		pin.Done()
		return v, nil, err
	}
	p := &Pending[T]{done: make(chan struct{})}
	go func() {
		conns.ReserveStack(0)
		cctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
		stop := context.AfterFunc(t.stop, cancel)
		p.v, p.err = call(cctx)
		stop()
		cancel()
		close(p.done)
	}()
	select {
	case <-p.done:
		return p.v, nil, p.err
	case <-ctx.Done():
		// An outcome racing ctx wins: it is the real one.
		select {
		case <-p.done:
			return p.v, nil, p.err
		default:
		}
		var zero T
		return zero, p, &conns.AbandonedError{Cause: context.Cause(ctx)}
	}
}
