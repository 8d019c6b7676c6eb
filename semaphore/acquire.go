package semaphore

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/goredisson/redisson/internal/conns"
	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/internal/events"
	"github.com/goredisson/redisson/internal/retry"
	"github.com/goredisson/redisson/observe"
)

// wakePolicy is Redisson's SemaphorePubSub: a message carries the permit
// count after a release, an add or a set, and wakes as many local waiters
// as there are permits (each re-runs the acquire; none trusts the number).
// A zero or negative count wakes nobody.
func wakePolicy(payload string) int {
	n, err := strconv.Atoi(payload)
	if err != nil || n <= 0 {
		return 0
	}
	return n
}

// Acquire takes permits, waiting until enough are available or ctx is done
// (Redisson's acquire(permits)). Acquiring 0 permits succeeds at once and
// sends nothing. On error nothing is held: an acquire in flight when ctx
// ended is given back if it took the permits.
func (s *Semaphore) Acquire(ctx context.Context, permits int) error {
	_, err := s.acquire(ctx, "acquire", permits, true, 0)
	return err
}

// TryAcquire takes permits if they are available now, or WithWait when they
// become available within the wait, and reports whether it took them
// (Redisson's tryAcquire(permits[, wait])). Running out of wait is false
// with a nil error; ctx ending is an error.
func (s *Semaphore) TryAcquire(ctx context.Context, permits int, opts ...Option) (bool, error) {
	o := apply(opts, Option.applyTry)
	if o.hasWait && o.wait < 0 {
		return false, s.fail("try acquire", fmt.Errorf("%w: the wait must not be negative, got %v", core.ErrInvalidArgument, o.wait))
	}
	return s.acquire(ctx, "try acquire", permits, o.wait > 0, o.wait)
}

// acquire tries once or, when wait is set, waits for the permits
// (core.Runtime.Wait: a release publishes on the channel) until the
// budget (0: none) or ctx ends.
func (s *Semaphore) acquire(ctx context.Context, op string, n int, wait bool, budget time.Duration) (bool, error) {
	if err := s.checkHandle(ctx); err != nil {
		return false, s.fail(op, err)
	}
	octx, ob := s.rt.Events().StartAcquire(ctx, "semaphore", s.name, wait, int64(n))
	ok, err := s.acquireObserved(octx, op, n, wait, budget, &ob)
	if ok && n > 0 {
		s.rt.Permits().Took(s.name, n, nil) // for the registration record
	}
	if ob.On() {
		ob.End(ctx, ok, err, wait)
		if ok && n > 0 {
			s.rt.Events().Permits(octx, "semaphore", s.name, observe.PermitsTaken, int64(n))
		}
	}
	return ok, err
}

func (s *Semaphore) acquireObserved(ctx context.Context, op string, n int, wait bool, budget time.Duration, ob *events.Acq) (bool, error) {
	if err := s.check(ctx); err != nil {
		return false, s.fail(op, err)
	}
	if err := checkPermits(n, false); err != nil {
		return false, s.fail(op, err)
	}
	if n == 0 {
		return true, nil
	}
	var deadline time.Time
	if budget > 0 {
		deadline = time.Now().Add(budget)
	}
	if !wait {
		ok, err := s.tryAcquire(ctx, n)
		ob.Try(ok, err)
		return ok, s.fail(op, err)
	}
	ok, err := s.rt.Retry().Wait(ctx, retry.WaitSpec{Channel: s.channel, Policy: wakePolicy, Deadline: deadline, Kind: "semaphore", Name: s.name, Observe: ob},
		func(ctx context.Context) (bool, time.Time, error) {
			ok, err := s.tryAcquire(ctx, n)
			return ok, time.Time{}, err
		})
	return ok, s.fail(op, err)
}

// tryAcquire runs the acquire script once and reports whether it took n
// permits.
//
// The script is not idempotent (it decrements), so it is sent at most once
// (EvalSyncedNoRetry) and on a context that ctx cannot cancel: cancelling
// must not cut the exchange short and leave its outcome unknown. When ctx
// ends first, tryAcquire returns and the reply is still awaited in the
// background: permits it reports taken are released at once, so a
// cancelled acquire never keeps them. Only a reply really lost (a broken
// connection, go-redis' read timeout) leaves the outcome unknown; see
// acquireOnce.
//
// The exchange and any give-back are registered with the runtime (Begin),
// so that Client.Close waits for them: cut off by Close, and then by the
// application closing its go-redis client, they would lose the permits for
// good.
func (s *Semaphore) tryAcquire(ctx context.Context, n int) (bool, error) {
	w, err := s.rt.Inflight().Begin()
	if err != nil {
		return false, err
	}
	if ctx.Done() == nil {
		defer w.End()
		return s.acquireOnce(ctx, n)
	}
	type reply struct {
		ok  bool
		err error
	}
	ch := make(chan reply, 1)
	go func() {
		// No deadline of our own either: cut short at a deadline, the
		// exchange would go on inside go-redis with nobody to act on its
		// reply. go-redis' read timeout bounds it.
		ok, err := s.acquireOnce(context.WithoutCancel(ctx), n)
		ch <- reply{ok, err}
	}()
	var cause error
	select {
	case r := <-ch:
		w.End()
		return r.ok, r.err
	case <-ctx.Done():
		cause = context.Cause(ctx)
	case <-s.rt.Closed():
		cause = core.ErrClosed
	}
	select {
	case r := <-ch:
		// The reply raced the end: it is the real outcome, and the caller
		// gets the permits it says were taken.
		w.End()
		return r.ok, r.err
	default:
	}
	go func() {
		defer w.End()
		if r := <-ch; r.ok {
			s.giveBack(ctx, n, "an acquire whose caller had left")
		}
	}()
	return false, cause
}

// acquireOnce runs the acquire script on ctx.
//
// A lost reply is the one case where the outcome stays unknown: the
// semaphore has no owner to ask (unlike a lock's hold count), and other
// clients change the count meanwhile, so Redis cannot tell whether the
// script ran. Of the two guesses, "not taken" can only lose permits (the
// semaphore admits fewer until AddPermits restores them), while "taken",
// with a release to be safe, could create permits and admit more holders
// than the semaphore allows. acquireOnce guesses "not taken" and says so in
// the error, as Redisson does when its no-retry acquire times out.
//
// A connection the server had closed before the command (a stale
// dedicated connection) most likely never delivered it; it is sent once
// more, which at worst loses the same permits the first guess would;
// not once the client is closing (the permits would only be given back).
func (s *Semaphore) acquireOnce(ctx context.Context, n int) (bool, error) {
	res, sync, err := s.rt.Run(ctx, acquireScript, core.RunOpts{Synced: true, NoRetry: true}, []string{s.name}, n)
	var stale *conns.StaleConnError
	if errors.As(err, &stale) && s.rt.Lifetime().Err() == nil {
		res, sync, err = s.rt.Run(ctx, acquireScript, core.RunOpts{Synced: true, NoRetry: true}, []string{s.name}, n)
	}
	if err != nil {
		if core.NotSent(err) {
			return false, err // it never reached Redis: nothing taken
		}
		if !isReply(err) {
			s.rt.Logger().Warn("redisson: an acquire got no reply; if it ran, its permits are missing from the semaphore",
				"semaphore", s.name, "permits", n, "err", err)
			return false, fmt.Errorf("no reply to the acquire of %d permits; if it ran they are taken and missing from the semaphore: %w", n, err)
		}
		return false, s.explain(ctx, err)
	}
	if res != int64(1) {
		return false, nil
	}
	if sync.Failed() && s.rt.Sync().FailOnNoSync {
		// Redisson's handleNoSync: a take no replica has seen would vanish
		// with a failover; give it back.
		s.giveBack(ctx, n, "an acquire no replica acknowledged")
		return false, sync.Err(s.rt.Sync().Timeout)
	}
	if s.rt.Lifetime().Err() != nil {
		// Taken while the client was closing: the caller gets ErrClosed,
		// so the permits go back now.
		s.giveBack(ctx, n, "an acquire that completed while the client closed")
		return false, core.ErrClosed
	}
	return true, nil
}

// giveBack releases n permits that were taken for a caller who will not
// have them, logging when that fails (the permits are then lost). A give-back
// Redis refuses is sent again until it accepts (core.Runtime.GiveBack). It
// sends nothing once Client.Close has returned (the application may have
// closed its go-redis client since): Close waits for give-backs, up to its
// bound.
func (s *Semaphore) giveBack(ctx context.Context, n int, what string) {
	failed := func(err error) {
		s.rt.Logger().Warn("redisson: giving back the permits of "+what+" failed; they are missing from the semaphore",
			"semaphore", s.name, "permits", n, "err", err)
	}
	err, pending := s.rt.Inflight().GiveBack(ctx, func(dctx context.Context) error { return s.releaseOn(dctx, n) }, func(err error) {
		if err != nil {
			failed(err)
		}
	})
	switch {
	case pending:
		s.rt.Logger().Warn("redisson: Redis refused giving back the permits of "+what+"; trying again until it accepts",
			"semaphore", s.name, "permits", n, "err", err)
	case err != nil:
		failed(err)
	}
}
