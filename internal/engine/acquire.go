package engine

import (
	"context"
	"errors"
	"time"

	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/internal/events"
	"github.com/goredisson/redisson/internal/holds"
	"github.com/goredisson/redisson/internal/hub"
	"github.com/goredisson/redisson/internal/localq"
	"github.com/goredisson/redisson/internal/renewal"
	"github.com/goredisson/redisson/internal/retry"
)

// Acquire runs the acquire protocol for r and, when it succeeds, fills h:
// try; if held, park in the client's local queue (when the object allows
// hand-off) and subscribe to the channel, try again (the holder may have left
// between the two), then sleep until a wake-up, a hand-off, the holder's TTL,
// the wait budget or ctx, and try again. While another owner of this client
// holds a hand-off lock no attempt is sent: its release hands the lock over
// or publishes. It reports false with a nil error when a bounded wait (or a
// single try) found the lock held.
//
// When something observes the client (core.Runtime.StartAcquire), the
// acquisition runs under the context the observer made of ctx (its Redis
// commands nest in the observer's span), while the hold keeps ctx's values.
func (l *Lock) Acquire(ctx context.Context, h *Hold, r Request) (bool, error) {
	if ctx == nil {
		return false, l.Err(r.Op(), core.ErrNilContext)
	}
	// a stays on the stack, the observer's record with it: a lock taken
	// at once allocates nothing for the acquisition itself.
	var a acquisition
	octx, ob := l.rt.Events().StartAcquire(ctx, l.cfg.Kind, l.cfg.Name, r.Wait, 0)
	a.ob = ob
	if ob.On() {
		r.base = ctx
	}
	r.queueFor = l.queueFor(ctx, r)
	ok, err := l.acquireOwned(octx, &a, h, r)
	err = l.Err(r.Op(), err)
	a.ob.End(ctx, ok, err, r.Wait)
	return ok, err
}

// acquireOwned runs acquire and, when it ends without the lock, cleans up
// after it; for a non-reentrant kind, under the owner's claim (see claim).
func (l *Lock) acquireOwned(ctx context.Context, a *acquisition, h *Hold, r Request) (bool, error) {
	if l.cfg.NonReentrant && r.Owner != 0 {
		if err := l.Check(ctx); err != nil {
			return false, err
		}
		field := l.Field(r.Owner)
		if err := l.claim(field); err != nil {
			return false, err
		}
		defer l.unclaim(field)
	}
	ok, err := l.acquire(ctx, a, h, r, a.ob)
	// A re-entry a non-reentrant kind refused was refused before its
	// script wrote anything: the owner holds the lock, so it is in no
	// queue, and Redisson sends nothing more either.
	if !ok && h.l != nil && !errors.Is(err, core.ErrNonReentrant) {
		l.leaveQueue(ctx, h, r)
		if h.unsure && r.Owner == 0 {
			lease := r.Lease
			if lease == 0 {
				lease = l.rt.WatchdogTimeout()
			}
			l.lookLate(ctx, l.Field(h.owner), lease, r)
		}
	}
	return ok, err
}

// queueScripts returns the object's QueueScripts when r waits in a Redis
// queue.
func (l *Lock) queueScripts(r Request) (QueueScripts, bool) {
	if !r.Wait {
		return nil, false
	}
	qs, ok := l.cfg.Scripts.(QueueScripts)
	return qs, ok
}

// queueFor is the stale interval in the Redis queue of a Lock call (a wait
// bounded by ctx alone) whose ctx has a deadline: the time left, as
// Redisson's tryLock(waitTime) counts its wait, at most the client's
// FairLockWaitTimeout. A waiter counts its interval in the queue on top of
// every waiter ahead of it; counting five minutes for a caller that gives
// up in a few milliseconds would hold everyone behind it back when its
// leave comes late or not at all. Zero when the interval is the default.
func (l *Lock) queueFor(ctx context.Context, r Request) time.Duration {
	if _, ok := l.queueScripts(r); !ok || !l.cfg.RedisQueue || r.WaitFor > 0 {
		return 0
	}
	dl, ok := ctx.Deadline()
	if !ok {
		return 0
	}
	// Whole ms, rounded up: the scripts count in ms, and a wait of 0
	// would mean the default.
	left := (time.Until(dl) + time.Millisecond - 1).Truncate(time.Millisecond)
	return min(max(left, time.Millisecond), l.rt.FairLockWaitTimeout())
}

// leaveQueue removes the owner of a waiting acquisition that gave up from
// the Redis queue: it may have been queued by any attempt, and a waiter
// left there would hold everyone behind it back until it turns stale
// (FairLockWaitTimeout after those ahead of it, five minutes by default).
func (l *Lock) leaveQueue(ctx context.Context, h *Hold, r Request) {
	qs, ok := l.queueScripts(r)
	if !ok {
		return
	}
	field, wait := l.Field(h.owner), r.queueWait()
	if l.undoRunning(field) == nil {
		// The caller's ctx may be what ended the wait.
		dctx, cancel := l.rt.ForRelease(ctx)
		err := qs.AcquireFailed(dctx, field, wait)
		cancel()
		if err == nil || !l.leaveAgain(err) {
			l.leaveFailed(err)
			return
		}
	}
	// A try the caller stopped waiting for, or its undo, is still to
	// settle (leaving first, the waiter would be queued again by it), or
	// the leave got no answer for a reason that may pass (Redis or the
	// pool too busy to answer within the client's timeout, when many
	// waiters give up at once): leave in the background, tried again as
	// an undo is, before any later acquire of field. The leave is
	// idempotent: a second run finds no entry.
	done := l.later(ctx, field, func(bg context.Context) { l.runLeave(bg, qs, field, wait) })
	if errors.Is(ctx.Err(), context.Canceled) {
		// A cancelled call leaves nothing behind when it returns.
		l.awaitDone(done)
	}
}

// leaveAgain reports whether a leave that failed with err is worth
// sending again: the failure may pass and the client is open.
func (l *Lock) leaveAgain(err error) bool {
	return l.rt.Retry().On() && core.Retryable(err) && l.rt.Lifetime().Err() == nil
}

// runLeave sends AcquireFailed for field until it got an answer, a failure
// that may pass being retried as a waiting call's tries are, or until
// Close returns (nothing may be sent then).
func (l *Lock) runLeave(bg context.Context, qs QueueScripts, field string, wait time.Duration) {
	retry := l.rt.Retry().Budget(l.cfg.Kind, l.cfg.Name)
	for {
		if l.rt.Inflight().Drained().Err() != nil {
			return // Close returned: nothing may be sent
		}
		uctx, cancel := l.rt.Inflight().ForUndo(bg)
		err := qs.AcquireFailed(uctx, field, wait)
		cancel()
		if err == nil {
			return
		}
		if !l.backOff(bg, &retry, err) {
			l.leaveFailed(err)
			return
		}
	}
}

// leaveFailed logs a leave that failed for good (nothing for nil).
func (l *Lock) leaveFailed(err error) {
	if err != nil {
		l.rt.Logger().Warn("redisson: leaving the wait queue failed; the entry turns stale at its deadline",
			"lock", l.cfg.Name, "err", err)
	}
}

func (l *Lock) acquire(ctx context.Context, a *acquisition, h *Hold, r Request, ob events.Acq) (bool, error) {
	a.ob = ob
	if err := l.Check(ctx); err != nil {
		return false, err
	}
	l.newAcquisition(ctx, a, h, r)
	if a.retrying {
		// A wait that ends owing the resolution of a lost try undoes it
		// in the background.
		defer func() {
			if a.pend.owes() {
				h.unsure = true
				l.undoLater(ctx, a.field, a.pend.lease, l.rt.RequestID())
			}
		}()
	}
	if !a.heldBack() {
		if done, ok, err := a.first(); done {
			return ok, err
		}
	}
	if !r.Wait {
		return false, nil
	}
	if l.cfg.HandOff {
		ref := l.e.queues.use(l.queueKey, localq.New[*Hold])
		defer ref.release()
		a.q = ref.value()
	}
	a.park()
	if l.cfg.Poll != nil {
		// No subscription: the first turn sleeps before it tries again,
		// as Redisson's spin lock does after its first try.
		a.poll = l.cfg.Poll()
		a.pollFirst = true
		return a.wait()
	}
	if ok, err := a.subscribe(); !ok {
		return l.abandon(ctx, a.q, a.w, err)
	}
	defer func() { a.sub.Close(a.acquired) }()
	return a.wait()
}

// acquisition is one call of acquire: what it asked for and how far it got.
type acquisition struct {
	l        *Lock
	ctx      context.Context
	h        *Hold
	r        Request
	ob       events.Acq // the observer's record of the call
	field    string
	lease    time.Duration
	watchdog bool
	deadline time.Time       // the end of a bounded wait; zero: none
	base     context.Context // the caller's, whose values the hold keeps
	// A waiting call rides out tries that fail for a reason that may pass
	// (a failover, a restart): it backs off and tries again, a budget of
	// tries in a row (retry.Retry). Until retryAt it sends nothing, unless
	// woken (a message, a local wake-up: Redis answers again); a hand-off
	// still reaches it.
	retry   retry.Retry
	retryAt time.Time
	// pend, for a waiting call that retries (retrying), holds a try whose
	// reply was lost until the next try resolves it (pendingUndo).
	pend     pendingUndo
	retrying bool
	q        *localq.Queue[*Hold] // the local queue, for an object with hand-off
	w        *localq.Waiter[*Hold]
	sub      *hub.Waiter
	acquired bool // the hold is the caller's: the subscription is passed on
	// poll, for an object that polls (Config.Poll), paces the tries in
	// place of a subscription; pollFirst: no try since the first.
	poll      func() time.Duration
	pollFirst bool
}

// newAcquisition fills h's owner and a with what r asks for.
func (l *Lock) newAcquisition(ctx context.Context, a *acquisition, h *Hold, r Request) {
	a.l, a.ctx, a.h, a.r, a.base = l, ctx, h, r, ctx
	owner := r.Owner
	if owner == 0 {
		owner = core.NewOwnerID()
	}
	h.l, h.owner = l, owner
	if r.Owner != 0 {
		h.id.Store(idKnown)
	}
	a.field = l.Field(owner)
	a.lease = r.Lease
	if a.lease == 0 {
		a.lease, a.watchdog = l.rt.WatchdogTimeout(), true
	}
	if r.Wait && r.WaitFor > 0 {
		a.deadline = time.Now().Add(r.WaitFor)
	}
	if r.base != nil {
		// The hold keeps the caller's values, not an observer's span.
		a.base = r.base
	}
	a.retry = l.rt.Retry().Budget(l.cfg.Kind, l.cfg.Name)
	if r.Wait && !r.NoRetry && l.rt.Retry().On() {
		// A try whose reply was lost is resolved by the next one, within
		// the same budget: it first reads whether that try ran (the lock
		// is then ours) instead of sending an undo, a copy of which,
		// delayed in the network, could release the hold a later try
		// takes.
		a.retrying = true
	}
}

// owed is the call's record of a lost try, nil when it does not retry.
func (a *acquisition) owed() *pendingUndo {
	if !a.retrying {
		return nil
	}
	return &a.pend
}

// heldBack reports whether the first try waits: another owner of this
// client holds a hand-off lock or is being handed it, or local goroutines
// give way. It needs no queue unless waiters exist: a lock taken at once
// allocates no local state. An owner that holds the lock through this
// client re-enters at once (see reentering).
func (a *acquisition) heldBack() bool {
	l := a.l
	if !l.cfg.HandOff || l.reentering(a.field) {
		return false
	}
	busy := l.rt.Holds().HeldByOther(l.cfg.Name, a.field)
	if ref, ok := l.e.queues.peek(l.queueKey); ok {
		busy = ref.value().HoldsBack(a.r.Wait, time.Now()) || busy
		ref.release()
	}
	return busy
}

// first sends the first try. It reports done when the call ends with it.
func (a *acquisition) first() (done, ok bool, err error) {
	start := time.Now()
	o, err := a.l.tryAcquire(a.ctx, a.field, a.lease, a.r, a.owed(), a.deadline, &a.h.unsure)
	a.ob.Try(o.OK, err)
	if err != nil {
		d, again := time.Duration(0), false
		if a.r.Wait && !a.r.NoRetry {
			d, again = a.retry.After(a.ctx, err)
		}
		if !again {
			return true, false, err
		}
		a.retryAt = time.Now().Add(d)
	}
	if o.OK {
		ok, err := a.done(start, o.Value)
		return true, ok, err
	}
	return false, false, nil
}

// park makes the call a waiter, in the local queue when there is one.
func (a *acquisition) park() {
	a.w = localq.NewWaiter(localq.Waiter[*Hold]{
		Field: a.field, Lease: a.lease, Watchdog: a.watchdog, Hold: a.h, Base: a.base,
	}, a.owed().owes())
	if a.q != nil {
		a.q.Park(a.w)
	}
}

// subscribe subscribes the waiter to the lock's channel (its own, for an
// object with ChannelFor), bounded by the wait's deadline. When it could
// not, it returns what the call reports: why, or nil when the wait ran out
// with no error to tell (the lock counts as held).
func (a *acquisition) subscribe() (bool, error) {
	l, ctx := a.l, a.ctx
	subCtx, cancel := ctx, context.CancelFunc(func() {})
	if !a.deadline.IsZero() {
		subCtx, cancel = context.WithDeadline(ctx, a.deadline)
	}
	defer cancel()
	channel := l.cfg.Channel
	if l.cfg.ChannelFor != nil {
		channel = l.cfg.ChannelFor(a.field)
	}
	var (
		sub *hub.Waiter
		err error
	)
	if a.r.NoRetry {
		sub, err = a.retry.SubscribeOnce(subCtx, channel, l.cfg.Policy)
	} else {
		sub, err = a.retry.Subscribe(subCtx, channel, l.cfg.Policy)
	}
	switch {
	case err == nil:
		a.sub = sub
	case errors.Is(err, hub.ErrClosed):
		return false, core.ErrClosed
	case ctx.Err() != nil:
		return false, context.Cause(ctx)
	case !a.deadline.IsZero() && !time.Now().Before(a.deadline):
		return false, a.retry.Err()
	default:
		return false, err
	}
	if q := a.q; q != nil {
		// The queue's waiters share the answer to a message no local
		// waiter is to be woken for (localq.Queue.PassOver).
		a.sub.PassOverWhen(q, func() bool {
			return q.PassOver(func() bool { return l.rt.Holds().HeldLocally(l.cfg.Name) })
		})
	}
	return true, nil
}

// wait is the waiting loop: decide what the woken waiter does (queue
// policy), do it, and sleep until a message, a local wake-up, a timer,
// the wait's end, ctx or Close.
func (a *acquisition) wait() (bool, error) {
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	woken := false               // by a message or a local wake-up, not a timer
	heard := false               // by a message
	var messages <-chan struct{} // nil while polling: never ready
	if a.sub != nil {
		messages = a.sub.C()
	}
	for {
		s := a.step(woken, heard)
		if s.done {
			return s.ok, s.err
		}
		if s.again {
			continue
		}
		if !a.deadline.IsZero() {
			left := time.Until(a.deadline)
			if left <= 0 {
				// Out of wait while retrying: nobody could tell whether
				// the lock was free, so say why rather than "held".
				return a.l.abandon(a.ctx, a.q, a.w, a.retry.Err())
			}
			s.sleep = min(s.sleep, left)
		}
		timer.Reset(s.sleep)
		woken, heard = false, false
		select {
		case <-messages:
			// A message (or a resubscription) means Redis answers: a
			// back-off ends here.
			woken, heard, a.retryAt = true, true, time.Time{}
		case <-a.w.Nudge():
			woken, a.retryAt = true, time.Time{}
		case <-timer.C:
		case <-a.ctx.Done():
			return a.l.abandon(a.ctx, a.q, a.w, context.Cause(a.ctx))
		case <-a.l.rt.Closed():
			return a.l.abandon(a.ctx, a.q, a.w, core.ErrClosed)
		}
	}
}

// stepped is what one turn of the waiting loop came to: the call's end
// (done), a new turn at once (again), or a sleep. backoff is, after a try
// that failed for a reason that may pass, how long until the next.
type stepped struct {
	done, ok bool
	err      error
	again    bool
	sleep    time.Duration
	backoff  time.Duration
}

// step takes one turn of the waiting loop after a wake-up (woken, heard).
func (a *acquisition) step(woken, heard bool) stepped {
	l := a.l
	backoff := time.Until(a.retryAt)
	t := localq.Turn{State: localq.Parked, Attempt: backoff <= 0}
	if a.q != nil {
		t = a.q.WakeUp(a.w, time.Now(), woken, heard, backoff <= 0, l.e.standBackFor,
			func() bool { return l.rt.Holds().HeldByOther(l.cfg.Name, a.field) },
			func() bool { return l.reentering(a.field) })
	}
	sleep := l.rt.WatchdogTimeout()
	if a.pollFirst {
		a.pollFirst = false
		t.Attempt, sleep = false, a.poll()
	}
	switch {
	case t.State == localq.Handed:
		return a.handedOff()
	case t.State == localq.Unknown:
		held, err := l.resolveUnknown(a.ctx, a.q, a.w)
		switch {
		case err != nil:
			// abandon gives back a lock the hand-off may have given w.
			ok, err := l.abandon(a.ctx, a.q, a.w, err)
			return stepped{done: true, ok: ok, err: err}
		case held:
			return a.handedOff()
		}
		return stepped{again: true}
	case t.Attempt:
		s := a.attempt()
		switch {
		case s.done:
			return s
		case s.sleep > 0:
			sleep = s.sleep
		default:
			backoff = s.backoff
		}
	}
	if backoff > 0 {
		sleep = backoff
	}
	if t.YieldLeft > 0 {
		sleep = min(sleep, t.YieldLeft)
	}
	return stepped{sleep: sleep}
}

// handedOff takes the lock a release handed the waiter.
func (a *acquisition) handedOff() stepped {
	a.acquired = true
	a.ob.HandOff = true
	a.l.take(a.base, a.q, a.w, a.h)
	ok, err := a.l.finish(a.ctx, a.h)
	return stepped{done: true, ok: ok, err: err}
}

// attempt sends the waiter's own try and records its outcome in the queue.
// Unless the call ends, it gives how long to sleep: the holder's TTL, or
// else the back-off before another try.
func (a *acquisition) attempt() stepped {
	l, pend := a.l, a.owed()
	start := time.Now()
	o, err := l.tryAcquire(a.ctx, a.field, a.lease, a.r, pend, a.deadline, &a.h.unsure)
	a.ob.Try(o.OK, err)
	if o.OK && pend != nil && !pend.ran.IsZero() {
		// The lost try ran: its lease counts from its send.
		start, pend.ran = pend.ran, time.Time{}
	}
	d, again := time.Duration(0), false
	if !a.r.NoRetry {
		d, again = a.retry.After(a.ctx, err)
	}
	if a.q != nil {
		a.q.Tried(a.w, o.OK, o.OK || err != nil && !again, pend.owes())
	}
	switch {
	case again:
		a.retryAt = time.Now().Add(d)
		return stepped{backoff: d}
	case err != nil:
		return stepped{done: true, err: err}
	case o.OK:
		a.acquired = true
		ok, err := a.done(start, o.Value)
		return stepped{done: true, ok: ok, err: err}
	case a.sub != nil && a.sub.Err() != nil:
		// Redis refused the channel when the hub subscribed it again (an
		// ACL changed): no release message can come. Fail as a refused
		// first subscribe does.
		ok, err := l.abandon(a.ctx, a.q, a.w, a.sub.Err())
		return stepped{done: true, ok: ok, err: err}
	}
	a.retry.Reset()
	if a.poll != nil {
		return stepped{sleep: a.poll()}
	}
	return stepped{sleep: l.sleepFor(o.TTL)}
}

// done registers the acquisition, which took the lock at start with value.
func (a *acquisition) done(start time.Time, value int64) (bool, error) {
	return a.l.acquired(a.ctx, a.base, a.h, a.field, a.watchdog, a.lease, start, value)
}

// sleepFor turns the holder's PTTL into how long to sleep: until it would
// expire, or for a lock without TTL (which Redisson waiters wait on for a
// message only) a watchdog period, so that a lost message cannot make a
// waiter sleep forever.
func (l *Lock) sleepFor(ttl time.Duration) time.Duration {
	if ttl < 0 {
		return l.rt.WatchdogTimeout()
	}
	return max(ttl, time.Millisecond)
}

func (l *Lock) register(ctx context.Context, h *Hold, field string, watchdog bool, lease time.Duration, start time.Time) {
	var kind renewal.Kind
	if watchdog {
		kind = l.cfg.Renew
	}
	l.rt.Holds().Acquired(ctx, &h.Hold, holds.Acquire{Key: l.cfg.Name, Owner: field, Object: l.cfg.Kind, Kind: kind, TTL: lease, Start: start, OnEnd: l.onEnd})
}

// acquired registers a successful acquire, which got value, in h (its
// context keeping base's values) and finishes.
func (l *Lock) acquired(ctx, base context.Context, h *Hold, field string, watchdog bool, lease time.Duration, start time.Time, value int64) (bool, error) {
	h.value = value
	l.register(base, h, field, watchdog, lease, start)
	return l.finish(ctx, h)
}

// finish gives back an acquire that completed while the client was closing
// instead of letting it linger for a lease.
func (l *Lock) finish(ctx context.Context, h *Hold) (bool, error) {
	if l.rt.Lifetime().Err() == nil {
		return true, nil
	}
	field := l.Field(h.owner)
	l.undo(ctx, field, l.rt.Holds().LeaseOf(l.cfg.Name, field, l.rt.WatchdogTimeout()))
	return false, core.ErrClosed
}
