package core

import (
	"context"
)

// Bounded runs call and returns when it does or when ctx is done, whichever
// comes first. go-redis ignores a context's deadline and cancellation while
// it waits for a reply unless the caller's client has ContextTimeoutEnabled
// (it then waits out its own ReadTimeout, 3 s by default): a lock call must
// not block past the bound its caller gave, and a holder must not sit in a
// stalled call past its lease. On ctx done the call goes on in the
// background until go-redis gives up; its outcome is unknown to the caller,
// which gets context.Cause(ctx) wrapped as a transport error.
//
// A context that can never be done (Done() == nil) and carries no bound
// set by Within runs call inline.
func Bounded[T any](ctx context.Context, call func(context.Context) (T, error)) (T, error) {
	if w, _ := ctx.Value(withinKey{}).(*withinCtx); w != nil {
		// A bound set by Within becomes a real deadline here.
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, w.limit)
		defer cancel()
	}
	if ctx.Done() == nil {
		return call(ctx)
	}
	type reply struct {
		v   T
		err error
	}
	ch := make(chan reply, 1)
	go func() {
		ReserveStack(0)
		v, err := call(ctx)
		ch <- reply{v, err}
	}()
	select {
	case r := <-ch:
		return r.v, r.err
	case <-ctx.Done():
		// A reply racing ctx wins: it is the real outcome.
		select {
		case r := <-ch:
			return r.v, r.err
		default:
		}
		var zero T
		return zero, &AbandonedError{Cause: context.Cause(ctx)}
	}
}

// AbandonedError reports a Redis call whose reply was not waited for
// because its context ended: whether it ran is unknown.
type AbandonedError struct{ Cause error }

func (e *AbandonedError) Error() string {
	return "no reply from Redis before the call's deadline: " + e.Cause.Error()
}

// Unwrap returns the context's cause (context.DeadlineExceeded,
// context.Canceled or the cancel cause).
func (e *AbandonedError) Unwrap() error { return e.Cause }
