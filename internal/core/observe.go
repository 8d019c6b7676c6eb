package core

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson/internal/hub"
	"github.com/goredisson/redisson/observe"
)

// Attribute names shared by the Debug logs and redissonotel's metrics, so
// that one filter finds one object's story.
const (
	AttrKind    = "redisson.object.kind"
	AttrName    = "redisson.object.name"
	AttrOutcome = "redisson.outcome"
	AttrWait    = "redisson.wait.duration"
	AttrTries   = "redisson.tries"
	AttrHandOff = "redisson.handoff"
	AttrCause   = "redisson.end.cause"
	AttrHeld    = "redisson.hold.duration"
	AttrReason  = "redisson.retry.reason"
	AttrPermits = "redisson.permits"
)

// Observer returns the client's observer, nil when none is set.
func (rt *Runtime) Observer() *observe.Observer { return rt.obs }

// debug reports whether the logger takes Debug records; its Enabled is
// asked first so that a logger at Info costs no record.
func (rt *Runtime) debug(ctx context.Context) bool {
	return rt.logger.Enabled(ctx, slog.LevelDebug)
}

// ObserveKind turns an object's kind as errors name it ("fair lock") into
// the observer's ("fair_lock") without allocating for the known ones.
func ObserveKind(kind string) observe.Kind {
	switch kind {
	case "":
		return ""
	case "lock":
		return observe.KindLock
	case "fair lock":
		return observe.KindFairLock
	case "read lock":
		return observe.KindReadLock
	case "write lock":
		return observe.KindWriteLock
	case "fenced lock":
		return observe.KindFencedLock
	case "group multi-lock":
		return observe.KindGroupMultiLock
	case "multi-lock":
		return observe.KindMultiLock
	case "RedLock", "red lock":
		return observe.KindRedLock
	case "semaphore":
		return observe.KindSemaphore
	case "permit-expirable semaphore":
		return observe.KindExpirableSemaphore
	case "latch":
		return observe.KindLatch
	case "rate limiter":
		return observe.KindRateLimiter
	}
	return observe.Kind(strings.NewReplacer(" ", "_", "-", "_").Replace(kind))
}

// Acq is one observed acquisition. The zero value (nothing observes) does
// nothing; it lives on its caller's stack.
type Acq struct {
	rt      *Runtime
	ctx     context.Context // the one AcquireStart returned
	kind    observe.Kind
	name    string
	start   time.Time
	permits int64
	// Tries counts the tries sent; HandOff says a local release handed the
	// lock over.
	Tries   int
	HandOff bool
}

// On reports whether the acquisition is observed.
func (a *Acq) On() bool { return a.rt != nil }

// StartAcquire begins observing an acquisition of the object kind/name
// ("lock", as errors name it) when an observer is set or the logger takes
// Debug records. It returns the context the acquisition runs under: ctx,
// or the one the observer's AcquireStart made of it.
func (rt *Runtime) StartAcquire(ctx context.Context, kind, name string, wait bool, permits int64) (context.Context, Acq) {
	if rt.obs == nil && !rt.debug(ctx) {
		return ctx, Acq{}
	}
	a := Acq{rt: rt, ctx: ctx, kind: ObserveKind(kind), name: name, start: time.Now(), permits: permits}
	if o := rt.obs; o != nil && o.AcquireStart != nil {
		if c := o.AcquireStart(ctx, observe.AcquireStart{Kind: a.kind, Name: name, Wait: wait, Permits: permits}); c != nil {
			a.ctx = c
		}
	}
	return a.ctx, a
}

// Try records one try: ok says it succeeded.
func (a *Acq) Try(ok bool, err error) {
	if a == nil || a.rt == nil {
		return
	}
	a.Tries++
	if o := a.rt.obs; o != nil && o.AcquireTry != nil {
		o.AcquireTry(a.ctx, observe.AcquireTry{Kind: a.kind, Name: a.name, Try: a.Tries, Acquired: ok, Err: err})
	}
}

// End ends the acquisition: ok says it acquired; err is what the call
// returns; wait says the call waited (a wait that ran out is TimedOut, a
// single try that found the object taken NotAcquired); parent is the
// caller's context, whose end tells a cancellation from a timeout.
func (a *Acq) End(parent context.Context, ok bool, err error, wait bool) {
	if a.rt == nil {
		return
	}
	e := observe.AcquireEnd{Kind: a.kind, Name: a.name, Err: err, Wait: time.Since(a.start), Tries: a.Tries, HandOff: a.HandOff, Permits: a.permits}
	e.Outcome = outcome(parent, ok, err, wait)
	if o := a.rt.obs; o != nil && o.AcquireEnd != nil {
		o.AcquireEnd(a.ctx, e)
	}
	if a.rt.debug(a.ctx) {
		a.rt.logger.LogAttrs(a.ctx, slog.LevelDebug, "redisson: acquisition ended",
			slog.String(AttrKind, string(e.Kind)), slog.String(AttrName, e.Name),
			slog.String(AttrOutcome, string(e.Outcome)), slog.Duration(AttrWait, e.Wait),
			slog.Int(AttrTries, e.Tries), slog.Bool(AttrHandOff, e.HandOff), slog.Any("err", err))
	}
}

func outcome(parent context.Context, ok bool, err error, wait bool) observe.Outcome {
	switch {
	case ok && err == nil:
		return observe.Acquired
	case err == nil && wait:
		return observe.TimedOut
	case err == nil && parent.Err() == nil:
		return observe.NotAcquired
	}
	switch cerr := parent.Err(); {
	case errors.Is(cerr, context.DeadlineExceeded):
		return observe.TimedOut
	case errors.Is(cerr, context.Canceled):
		return observe.Cancelled
	case err == nil:
		return observe.NotAcquired
	}
	return observe.Error
}

// Rel is one observed release; like Acq, its zero value does nothing.
type Rel struct {
	rt    *Runtime
	ctx   context.Context
	kind  observe.Kind
	name  string
	start time.Time
}

// StartRelease begins observing an Unlock of kind/name and returns the
// context it runs under.
func (rt *Runtime) StartRelease(ctx context.Context, kind, name string) (context.Context, Rel) {
	if rt.obs == nil && !rt.debug(ctx) {
		return ctx, Rel{}
	}
	r := Rel{rt: rt, ctx: ctx, kind: ObserveKind(kind), name: name, start: time.Now()}
	if o := rt.obs; o != nil && o.ReleaseStart != nil {
		if c := o.ReleaseStart(ctx, observe.ReleaseStart{Kind: r.kind, Name: name}); c != nil {
			r.ctx = c
		}
	}
	return r.ctx, r
}

// End ends the release.
func (r *Rel) End(err error, full, handOff bool) {
	if r.rt == nil {
		return
	}
	e := observe.ReleaseEnd{Kind: r.kind, Name: r.name, Err: err, Duration: time.Since(r.start), Full: full, HandOff: handOff}
	if o := r.rt.obs; o != nil && o.ReleaseEnd != nil {
		o.ReleaseEnd(r.ctx, e)
	}
	if r.rt.debug(r.ctx) {
		msg := "redisson: released"
		if handOff {
			msg = "redisson: released and handed over"
		}
		r.rt.logger.LogAttrs(r.ctx, slog.LevelDebug, msg,
			slog.String(AttrKind, string(e.Kind)), slog.String(AttrName, e.Name),
			slog.Duration("redisson.release.duration", e.Duration), slog.Bool("redisson.release.full", full),
			slog.Bool(AttrHandOff, handOff), slog.Any("err", err))
	}
}

// holdEnded reports the end of hold h of the object kind (as errors name
// it) with cause.
func (rt *Runtime) holdEnded(h *Hold, kind string, cause error) {
	start := h.start.Swap(0)
	if start == 0 {
		return // acquired while nothing observed, reported, or unreported
	}
	e := observe.HoldEnd{Kind: ObserveKind(kind), Name: h.key, Held: time.Since(rt.epoch) - time.Duration(start)}
	switch {
	case errors.Is(cause, context.Canceled):
		e.Cause = observe.Released
	case errors.Is(cause, ErrClosed):
		e.Cause, e.Err = observe.Closed, cause
	case errors.Is(cause, ErrLeaseExpired):
		e.Cause, e.Err = observe.Expired, cause
	default:
		e.Cause, e.Err = observe.Lost, cause
	}
	if o := rt.obs; o != nil && o.HoldEnd != nil {
		o.HoldEnd(h.ctx, e)
	}
	if rt.debug(h.ctx) {
		rt.logger.LogAttrs(h.ctx, slog.LevelDebug, "redisson: hold ended",
			slog.String(AttrKind, string(e.Kind)), slog.String(AttrName, e.Name),
			slog.String(AttrCause, string(e.Cause)), slog.Duration(AttrHeld, e.Held), slog.Any("err", e.Err))
	}
}

// retryReason classifies a failure Retryable accepted.
func retryReason(err error) observe.RetryReason {
	switch {
	case errors.Is(err, hub.ErrNotConfirmed):
		return observe.RetryNotConfirmed
	case errors.Is(err, redis.ErrPoolTimeout):
		return observe.RetryPoolTimeout
	case errors.Is(err, ErrNoSyncedReplicas):
		return observe.RetryNoSyncedReplicas
	case Rejected(err):
		return observe.RetryRejected
	}
	return observe.RetryConnection
}

// Permits reports semaphore permits taken or given back.
func (rt *Runtime) Permits(ctx context.Context, kind, name string, op observe.PermitsOp, n int64) {
	if o := rt.obs; o != nil && o.Permits != nil {
		o.Permits(ctx, observe.Permits{Kind: ObserveKind(kind), Name: name, Op: op, Count: n})
	}
}

// RateLimit reports a rate limiter's grant or refusal.
func (rt *Runtime) RateLimit(ctx context.Context, name string, n int64, granted bool) {
	if o := rt.obs; o != nil && o.RateLimit != nil {
		o.RateLimit(ctx, observe.RateLimit{Name: name, Permits: n, Granted: granted})
	}
}

// CountDown reports a latch's count-down.
func (rt *Runtime) CountDown(ctx context.Context, name string, err error) {
	if o := rt.obs; o != nil && o.CountDown != nil {
		o.CountDown(ctx, observe.CountDown{Name: name, Err: err})
	}
}

// subscribed reports a waiting call's subscription.
func (r *Retry) subscribed(ctx context.Context, channel string, start time.Time, err error) {
	if o := r.rt.obs; o != nil && o.Subscribe != nil {
		o.Subscribe(ctx, observe.Subscribe{Kind: ObserveKind(r.kind), Name: r.name, Channel: channel, Duration: time.Since(start), Err: err})
	}
}
