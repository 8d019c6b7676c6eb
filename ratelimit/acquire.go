package ratelimit

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/internal/events"
	"github.com/goredisson/redisson/internal/inflight"
)

// Option changes one TryAcquire call.
type Option func(*acquireOptions)

type acquireOptions struct{ wait time.Duration }

// WithWait makes TryAcquire wait up to wait for the permits to be due (and
// no longer than ctx allows). 0, the default, tries once. As Redisson's
// tryAcquire(permits, timeout), a call that sees the permits cannot be due
// within the wait still returns only when the wait is over.
func WithWait(wait time.Duration) Option {
	return func(o *acquireOptions) { o.wait = wait }
}

// TryAcquire takes permits from the window if it has them now, or WithWait
// when they become due within the wait, and reports whether it took them.
// Running out of wait is false with a nil error; ctx ending is an error.
// More permits than the rate is ErrExceedsRate; 0 permits is true at once.
func (l *Limiter) TryAcquire(ctx context.Context, permits int64, opts ...Option) (bool, error) {
	var o acquireOptions
	for _, opt := range opts {
		if opt != nil { // a nil option is ignored
			opt(&o)
		}
	}
	if o.wait < 0 {
		return false, l.fail("try acquire", fmt.Errorf("%w: the wait must not be negative, got %v", core.ErrInvalidArgument, o.wait))
	}
	return l.acquire(ctx, "try acquire", permits, false, o.wait)
}

// Acquire takes permits, waiting until they are due or ctx is done. The
// wait is the one the script computes (when the oldest grant leaves the
// window), so it sends one command per retry, not a poll.
func (l *Limiter) Acquire(ctx context.Context, permits int64) error {
	_, err := l.acquire(ctx, "acquire", permits, true, 0)
	return err
}

func (l *Limiter) acquire(ctx context.Context, op string, n int64, forever bool, wait time.Duration) (bool, error) {
	if l == nil || ctx == nil {
		return false, l.fail(op, l.check(ctx))
	}
	waits := forever || wait > 0
	octx, ob := l.rt.Events().StartAcquire(ctx, "rate limiter", l.name, waits, n)
	ok, err := l.acquireObserved(octx, op, n, forever, wait, &ob)
	ob.End(ctx, ok, err, waits)
	return ok, err
}

func (l *Limiter) acquireObserved(ctx context.Context, op string, n int64, forever bool, wait time.Duration, ob *events.Acq) (bool, error) {
	if err := l.check(ctx); err != nil {
		return false, l.fail(op, err)
	}
	if n < 0 {
		return false, l.fail(op, fmt.Errorf("%w: permits must not be negative, got %d", core.ErrInvalidArgument, n))
	}
	if n == 0 {
		return true, nil
	}
	deadline := time.Now().Add(wait)
	var timer *time.Timer
	// A wait rides out tries that fail for a reason that may pass (a
	// failover): it backs off and tries again, a budget of tries in a row.
	// A single try (no wait) does not.
	retry := l.rt.Retry().Budget("rate limiter", l.name)
	for {
		delay, err := l.tryAcquire(ctx, n)
		ob.Try(err == nil && delay < 0, err)
		if err == nil && l.rt.Events().Observer() != nil {
			l.rt.Events().RateLimit(ctx, l.name, n, delay < 0)
		}
		d, again := time.Duration(0), false
		if err != nil && (forever || wait > 0) {
			d, again = retry.After(ctx, err)
		}
		switch {
		case again:
			delay = d
		case err != nil:
			return false, l.fail(op, err)
		case delay < 0:
			return true, nil
		default:
			retry.Reset()
		}
		if !forever {
			left := time.Until(deadline)
			if left <= 0 {
				return false, l.fail(op, retry.Err())
			}
			// Redisson waits out the rest of the wait before answering
			// false when the permits are due later than it.
			delay = min(delay, left)
		}
		if timer == nil {
			timer = time.NewTimer(delay)
			defer timer.Stop()
		} else {
			timer.Reset(delay)
		}
		select {
		case <-timer.C:
		case <-ctx.Done():
			return false, l.fail(op, context.Cause(ctx))
		case <-l.rt.Closed():
			return false, l.fail(op, core.ErrClosed)
		}
	}
}

// tryAcquire runs the acquire script once: -1 when the permits were
// granted, otherwise how long until they may be.
//
// It is sent at most once: a second run after a lost reply could grant
// twice. When ctx ends with the script on the wire, tryAcquire returns and
// the grant, if the script makes one, is taken back once its reply is in
// (inflight.Settle, undoGrant); so is a grant whose reply was lost, by its id:
// the window does not count permits nobody uses.
func (l *Limiter) tryAcquire(ctx context.Context, n int64) (time.Duration, error) {
	var id [16]byte
	_, _ = rand.Read(id[:])
	var res any
	var err error
	if cctx, pin, inline := l.rt.Conns().Inline(ctx, l.keys[0]); inline {
		res, err = l.acquireOnce(cctx, n, id)
		pin.Done()
	} else {
		var p *inflight.Pending[any]
		res, p, err = inflight.Settle(l.rt.Inflight(), ctx, func(ctx context.Context) (any, error) {
			return l.acquireOnce(ctx, n, id)
		})
		if p != nil {
			l.undoGrant(ctx, n, id, p)
			return 0, err
		}
	}
	if err != nil {
		var re redis.Error
		if !errors.As(err, &re) && !errors.Is(err, core.ErrWrongType) && !core.NotSent(err) {
			l.undoGrant(ctx, n, id, nil)
			if ctx.Err() == nil {
				return 0, fmt.Errorf("no reply to the acquire of %d permits; a grant it made is taken back: %w", n, err)
			}
		}
		return 0, l.explain(ctx, err)
	}
	switch v := res.(type) {
	case nil:
		return -1, nil
	case int64:
		return max(time.Duration(v)*time.Millisecond, time.Millisecond), nil
	}
	if err := fault(res); err != nil {
		return 0, err
	}
	return 0, fmt.Errorf("unexpected reply %T %v", res, res)
}

// acquireOnce sends the acquire script for n permits as grant id.
func (l *Limiter) acquireOnce(ctx context.Context, n int64, id [16]byte) (any, error) {
	res, _, err := l.rt.Run(ctx, acquireScript, core.RunOpts{Synced: true, NoRetry: true}, l.keys, n, nowMS(), string(id[:]))
	return res, err
}

// undoGrant takes back, in the background, the grant id of n permits that
// its caller will not use, once the outcome of the acquire p is in (nil:
// the acquire ended without a reply). Client.Close waits for it, bounded.
// Sent before the acquire ran, it would find nothing, and the grant would
// then count against the window for nobody; after an acquire that got no
// reply it may still come first (the command may sit in the network), and
// the grant then only admits fewer calls, never more.
func (l *Limiter) undoGrant(ctx context.Context, n int64, id [16]byte, p *inflight.Pending[any]) {
	bg := context.WithoutCancel(ctx)
	run := func() {
		if p != nil {
			res, err, known := p.Wait(l.rt.Inflight().Drained())
			if !known {
				return // Close returned: nothing may be sent
			}
			if err == nil && res != nil || err != nil && core.NotSent(err) {
				return // refused, or never sent: nothing was granted
			}
			var re redis.Error
			if err != nil && (errors.As(err, &re) || errors.Is(err, core.ErrWrongType)) {
				return // Redis refused it
			}
		}
		failed := func(err error) {
			l.rt.Logger().Warn("redisson: taking back a grant nobody uses failed; it counts against the window until it leaves it",
				"ratelimiter", l.name, "permits", n, "err", err)
		}
		// A take-back Redis refuses is sent again until it accepts; it
		// finds nothing to take back once the grant has left the window.
		err, pending := l.rt.Inflight().GiveBack(bg, func(uctx context.Context) error {
			_, _, err := l.rt.Run(uctx, undoGrantScript, core.RunOpts{}, l.keys, n, string(id[:]))
			return err
		}, func(err error) {
			if err != nil {
				failed(err)
			}
		})
		switch {
		case pending:
			l.rt.Logger().Warn("redisson: Redis refused taking back a grant nobody uses; trying again until it accepts",
				"ratelimiter", l.name, "permits", n, "err", err)
		case errors.Is(err, core.ErrClosed):
			// Close returned: nothing may be sent
		case err != nil:
			failed(err)
		}
	}
	w, err := l.rt.Inflight().Begin()
	if err != nil {
		run() // Close has begun and waits for nothing new
		return
	}
	go func() {
		defer w.End()
		run()
	}()
}
