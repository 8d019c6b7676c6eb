// Package events reports a client's acquisitions, releases, holds and
// other happenings to its observer (package observe) and Debug log.
package events

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"time"

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

// Sink is where one client's events go: its observer (nil when none is
// set) and its logger's Debug records.
type Sink struct {
	obs    *observe.Observer
	logger *slog.Logger
	// epoch: hold start stamps count from it (see Stamp).
	epoch    time.Time
	classify Classify
}

// Classify is the client's reading of a failed try, the one its retries
// use, so that a try's event names the failure as a retry would.
type Classify struct {
	// Retryable reports whether a failure may pass (core.Retryable).
	Retryable func(error) bool
	// Reason classifies a failure Retryable accepted.
	Reason func(error) observe.RetryReason
}

// New returns the sink of a client with observer obs (may be nil) and
// logger (not nil); hold stamps count from epoch; c classifies the
// failures of tries (its funcs may be nil: no failure is classified).
func New(obs *observe.Observer, logger *slog.Logger, epoch time.Time, c Classify) *Sink {
	return &Sink{obs: obs, logger: logger, epoch: epoch, classify: c}
}

// reason returns the retry reason of a try's failure err under ctx: empty
// for no error, one that cannot pass, or a try cut short by the end of
// ctx, which is the caller giving up, not Redis failing.
func (s *Sink) reason(ctx context.Context, err error) observe.RetryReason {
	c := s.classify
	if err == nil || c.Retryable == nil || c.Reason == nil || ctx.Err() != nil || !c.Retryable(err) {
		return ""
	}
	return c.Reason(err)
}

// Observer returns the client's observer, nil when none is set.
func (s *Sink) Observer() *observe.Observer { return s.obs }

// Logger returns the client's logger.
func (s *Sink) Logger() *slog.Logger { return s.logger }

// On reports whether anything wants the events of a call under ctx: an
// observer, or a logger that takes Debug records.
func (s *Sink) On(ctx context.Context) bool { return s.obs != nil || s.debug(ctx) }

// debug reports whether the logger takes Debug records; its Enabled is
// asked first so that a logger at Info costs no record.
func (s *Sink) debug(ctx context.Context) bool {
	return s.logger.Enabled(ctx, slog.LevelDebug)
}

// Stamp returns now as a hold's start stamp: ns since the epoch on the
// monotonic clock, never 0 (0 means unstamped).
func (s *Sink) Stamp() int64 { return max(int64(time.Since(s.epoch)), 1) }

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
	case "spin lock":
		return observe.KindSpinLock
	case "non-reentrant lock":
		return observe.KindNonReentrantLock
	case "non-reentrant fair lock":
		return observe.KindNonReentrantFair
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
	s       *Sink
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
func (a *Acq) On() bool { return a.s != nil }

// StartAcquire begins observing an acquisition of the object kind/name
// ("lock", as errors name it) when an observer is set or the logger takes
// Debug records. It returns the context the acquisition runs under: ctx,
// or the one the observer's AcquireStart made of it.
func (s *Sink) StartAcquire(ctx context.Context, kind, name string, wait bool, permits int64) (context.Context, Acq) {
	if s.obs == nil && !s.debug(ctx) {
		return ctx, Acq{}
	}
	a := Acq{s: s, ctx: ctx, kind: ObserveKind(kind), name: name, start: time.Now(), permits: permits}
	if o := s.obs; o != nil && o.AcquireStart != nil {
		if c := o.AcquireStart(ctx, observe.AcquireStart{Kind: a.kind, Name: name, Wait: wait, Permits: permits}); c != nil {
			a.ctx = c
		}
	}
	return a.ctx, a
}

// Try records one try: ok says it succeeded.
func (a *Acq) Try(ok bool, err error) {
	if a == nil || a.s == nil {
		return
	}
	a.Tries++
	if o := a.s.obs; o != nil && o.AcquireTry != nil {
		o.AcquireTry(a.ctx, observe.AcquireTry{Kind: a.kind, Name: a.name, Try: a.Tries, Acquired: ok, Err: err,
			Reason: a.s.reason(a.ctx, err)})
	}
}

// End ends the acquisition: ok says it acquired; err is what the call
// returns; wait says the call waited (a wait that ran out is TimedOut, a
// single try that found the object taken NotAcquired); parent is the
// caller's context, whose end tells a cancellation from a timeout.
func (a *Acq) End(parent context.Context, ok bool, err error, wait bool) {
	if a.s == nil {
		return
	}
	e := observe.AcquireEnd{Kind: a.kind, Name: a.name, Err: err, Wait: time.Since(a.start), Tries: a.Tries, HandOff: a.HandOff, Permits: a.permits}
	e.Outcome = outcome(parent, ok, err, wait)
	if o := a.s.obs; o != nil && o.AcquireEnd != nil {
		o.AcquireEnd(a.ctx, e)
	}
	if a.s.debug(a.ctx) {
		a.s.logger.LogAttrs(a.ctx, slog.LevelDebug, "redisson: acquisition ended",
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
	s     *Sink
	ctx   context.Context
	kind  observe.Kind
	name  string
	start time.Time
}

// StartRelease begins observing an Unlock of kind/name and returns the
// context it runs under.
func (s *Sink) StartRelease(ctx context.Context, kind, name string) (context.Context, Rel) {
	if s.obs == nil && !s.debug(ctx) {
		return ctx, Rel{}
	}
	r := Rel{s: s, ctx: ctx, kind: ObserveKind(kind), name: name, start: time.Now()}
	if o := s.obs; o != nil && o.ReleaseStart != nil {
		if c := o.ReleaseStart(ctx, observe.ReleaseStart{Kind: r.kind, Name: name}); c != nil {
			r.ctx = c
		}
	}
	return r.ctx, r
}

// End ends the release.
func (r *Rel) End(err error, full, handOff bool) {
	if r.s == nil {
		return
	}
	e := observe.ReleaseEnd{Kind: r.kind, Name: r.name, Err: err, Duration: time.Since(r.start), Full: full, HandOff: handOff}
	if o := r.s.obs; o != nil && o.ReleaseEnd != nil {
		o.ReleaseEnd(r.ctx, e)
	}
	if r.s.debug(r.ctx) {
		msg := "redisson: released"
		if handOff {
			msg = "redisson: released and handed over"
		}
		r.s.logger.LogAttrs(r.ctx, slog.LevelDebug, msg,
			slog.String(AttrKind, string(e.Kind)), slog.String(AttrName, e.Name),
			slog.Duration("redisson.release.duration", e.Duration), slog.Bool("redisson.release.full", full),
			slog.Bool(AttrHandOff, handOff), slog.Any("err", err))
	}
}

// HoldEnded reports the end of a hold of key, of the object kind (as
// errors name it), stamped start (Stamp), with cause: released
// (context.Canceled), closed, expired or lost, as end says. ctx is the
// hold's.
func (s *Sink) HoldEnded(ctx context.Context, kind, key string, start int64, end observe.EndCause, cause error) {
	e := observe.HoldEnd{Kind: ObserveKind(kind), Name: key, Held: time.Since(s.epoch) - time.Duration(start), Cause: end}
	if end != observe.Released {
		e.Err = cause
	}
	if o := s.obs; o != nil && o.HoldEnd != nil {
		o.HoldEnd(ctx, e)
	}
	if s.debug(ctx) {
		s.logger.LogAttrs(ctx, slog.LevelDebug, "redisson: hold ended",
			slog.String(AttrKind, string(e.Kind)), slog.String(AttrName, e.Name),
			slog.String(AttrCause, string(e.Cause)), slog.Duration(AttrHeld, e.Held), slog.Any("err", e.Err))
	}
}

// Permits reports semaphore permits taken or given back.
func (s *Sink) Permits(ctx context.Context, kind, name string, op observe.PermitsOp, n int64) {
	if o := s.obs; o != nil && o.Permits != nil {
		o.Permits(ctx, observe.Permits{Kind: ObserveKind(kind), Name: name, Op: op, Count: n})
	}
}

// RateLimit reports a rate limiter's grant or refusal.
func (s *Sink) RateLimit(ctx context.Context, name string, n int64, granted bool) {
	if o := s.obs; o != nil && o.RateLimit != nil {
		o.RateLimit(ctx, observe.RateLimit{Name: name, Permits: n, Granted: granted})
	}
}

// CountDown reports a latch's count-down.
func (s *Sink) CountDown(ctx context.Context, name string, err error) {
	if o := s.obs; o != nil && o.CountDown != nil {
		o.CountDown(ctx, observe.CountDown{Name: name, Err: err})
	}
}

// Subscribed reports a waiting call's subscription to channel, for the
// object kind/name, begun at start.
func (s *Sink) Subscribed(ctx context.Context, kind, name, channel string, start time.Time, err error) {
	if o := s.obs; o != nil && o.Subscribe != nil {
		o.Subscribe(ctx, observe.Subscribe{Kind: ObserveKind(kind), Name: name, Channel: channel, Duration: time.Since(start), Err: err})
	}
}
