package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/internal/hub"
	"github.com/goredisson/redisson/internal/renewal"
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
	octx, ob := l.rt.StartAcquire(ctx, l.cfg.Kind, l.cfg.Name, r.Wait, 0)
	if ob.On() {
		r.base = ctx
	}
	r.queueFor = l.queueFor(ctx, r)
	ok, err := l.acquire(octx, h, r, &ob)
	if !ok && h.l != nil {
		l.leaveQueue(octx, h, r)
		if h.unsure && r.Owner == 0 {
			lease := r.Lease
			if lease == 0 {
				lease = l.rt.WatchdogTimeout()
			}
			l.lookLate(octx, l.Field(h.owner), lease, r)
		}
	}
	err = l.Err(r.Op(), err)
	ob.End(ctx, ok, err, r.Wait)
	return ok, err
}

// lookLate looks once more for what a failed acquisition's tries left in
// Redis, when one of them got no reply (h.unsure): the client's Timeout
// after the undos it owed have run, it undoes a hold of field and leaves
// the queue again. A try and its undo travel on different connections, so
// a copy of the try held up in the network (a stall, a queue behind a slow
// command) can run after the undo found nothing to release, and take the
// lock for nobody until its lease ends (the watchdog's 30 s), or queue a
// fair-lock waiter that left, holding everyone behind it back until it is
// stale (fairLockWaitTimeout, 5 min). Only for a fresh owner (no
// WithOwner): the field is then nobody's once the acquisition has failed,
// so whatever holds it in Redis is for nobody and no later acquire can be
// what the look finds. Close waits for it, and once Close has begun it
// looks at once.
func (l *Lock) lookLate(ctx context.Context, field string, lease time.Duration, r Request) {
	w, err := l.rt.Begin()
	if err != nil {
		return
	}
	bg := context.WithoutCancel(ctx)
	go func() {
		defer w.End()
		for done := l.undoRunning(field); done != nil; done = l.undoRunning(field) {
			select {
			case <-done:
			case <-l.rt.Stopped().Done():
				return
			}
		}
		t := time.NewTimer(l.rt.Timeout())
		select {
		case <-t.C:
		case <-l.rt.Done().Done():
			t.Stop()
		}
		if l.rt.Stopped().Err() != nil {
			return
		}
		uctx, cancel := l.rt.Undoing(bg)
		cv, err := l.countValue(uctx, field)
		cancel()
		if err == nil && cv.count > 0 {
			l.rt.Logger().Warn("redisson: an acquire that got no reply ran after it was undone; undoing it again",
				"lock", l.cfg.Name, "holds", cv.count)
			for range cv.count {
				l.runUndo(bg, field, lease, l.rt.RequestID())
			}
		}
		if qs, ok := l.queueScripts(r); ok {
			uctx, cancel := l.rt.Undoing(bg)
			l.acquireFailed(uctx, qs, field, r.queueWait())
			cancel()
		}
	}()
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
// left there would hold everyone behind it back until it turns stale.
func (l *Lock) leaveQueue(ctx context.Context, h *Hold, r Request) {
	qs, ok := l.queueScripts(r)
	if !ok {
		return
	}
	field := l.Field(h.owner)
	if l.undoRunning(field) != nil {
		// A try the caller stopped waiting for, or its undo, is still to
		// settle: leaving first, the waiter would be queued again by it.
		done := l.later(ctx, field, func(bg context.Context) {
			if l.rt.Stopped().Err() != nil {
				return // Close returned: nothing may be sent
			}
			uctx, cancel := l.rt.Undoing(bg)
			defer cancel()
			l.acquireFailed(uctx, qs, field, r.queueWait())
		})
		if errors.Is(ctx.Err(), context.Canceled) {
			l.awaitDone(done)
		}
		return
	}
	// The caller's ctx may be what ended the wait.
	dctx, cancel := l.rt.Detached(ctx)
	defer cancel()
	l.acquireFailed(dctx, qs, field, r.queueWait())
}

// acquireFailed sends AcquireFailed for field on dctx, a context of its
// own bounded by the client's timeout.
func (l *Lock) acquireFailed(dctx context.Context, qs QueueScripts, field string, wait time.Duration) {
	if err := qs.AcquireFailed(dctx, field, wait); err != nil {
		l.rt.Logger().Warn("redisson: leaving the wait queue failed; the entry turns stale at its deadline",
			"lock", l.cfg.Name, "err", err)
	}
}

func (l *Lock) acquire(ctx context.Context, h *Hold, r Request, ob *core.Acq) (bool, error) {
	if err := l.Check(ctx); err != nil {
		return false, err
	}
	owner := r.Owner
	if owner == 0 {
		owner = core.NewOwnerID()
	}
	h.l, h.owner = l, owner
	if r.Owner != 0 {
		h.id.Store(idKnown)
	}
	field := l.Field(owner)
	lease, watchdog := r.Lease, false
	if lease == 0 {
		lease, watchdog = l.rt.WatchdogTimeout(), true
	}
	var deadline time.Time
	if r.Wait && r.WaitFor > 0 {
		deadline = time.Now().Add(r.WaitFor)
	}
	// The first try needs no queue unless waiters exist: a lock taken at
	// once allocates no local state. An owner that holds the lock through
	// this client re-enters at once (see reentering).
	busy := false
	// The hold keeps the caller's values, not an observer's span.
	base := ctx
	if r.base != nil {
		base = r.base
	}
	if l.cfg.HandOff && !l.reentering(field) {
		busy = l.rt.HeldByOther(l.cfg.Name, field)
		if ref, ok := l.e.queues.peek(l.queueKey); ok {
			q := ref.value()
			q.mu.Lock()
			// A single try still tries while local goroutines stand
			// back: it does not queue, so it takes no turn from anyone.
			busy = busy || q.pending > 0 || (r.Wait && q.yielding(time.Now()))
			q.mu.Unlock()
			ref.release()
		}
	}
	// A waiting call rides out tries that fail for a reason that may pass
	// (a failover, a restart): it backs off and tries again, a budget of
	// tries in a row (core.Retry). Until retryAt it sends nothing, unless
	// woken (a message, a local wake-up: Redis answers again); a hand-off
	// still reaches it.
	retry := l.rt.RetryOf(l.cfg.Kind, l.cfg.Name)
	var retryAt time.Time
	var pend *pendingUndo
	if r.Wait && !r.NoRetry && l.rt.Retries() {
		// A try whose reply was lost is resolved by the next one, within
		// the same budget: it first reads whether that try ran (the lock
		// is then ours) instead of sending an undo, a copy of which,
		// delayed in the network, could release the hold a later try
		// takes. A wait that ends owing it undoes it in the background.
		pend = &pendingUndo{}
		defer func() {
			if pend.owes() {
				h.unsure = true
				l.undoLater(ctx, field, pend.lease, l.rt.RequestID())
			}
		}()
	}
	if !busy {
		start := time.Now()
		_, ok, value, err := l.tryAcquire(ctx, field, lease, r, pend, deadline, &h.unsure)
		ob.Try(ok, err)
		if err != nil {
			d, again := time.Duration(0), false
			if r.Wait && !r.NoRetry {
				d, again = retry.After(ctx, err)
			}
			if !again {
				return false, err
			}
			retryAt = time.Now().Add(d)
		}
		if ok {
			return l.acquired(ctx, base, h, field, watchdog, lease, start, value)
		}
	}
	if !r.Wait {
		return false, nil
	}

	var q *queue
	w := &waiter{field: field, lease: lease, watchdog: watchdog, state: parked, owesUndo: pend.owes(), nudge: make(chan struct{}, 1), hold: h, base: base}
	if l.cfg.HandOff {
		ref := l.e.queues.use(l.queueKey, newQueue)
		defer ref.release()
		q = ref.value()
		q.mu.Lock()
		q.add(w)
		q.mu.Unlock()
	}

	subCtx, cancel := ctx, context.CancelFunc(func() {})
	if !deadline.IsZero() {
		subCtx, cancel = context.WithDeadline(ctx, deadline)
	}
	channel := l.cfg.Channel
	if l.cfg.ChannelFor != nil {
		channel = l.cfg.ChannelFor(field)
	}
	var sub *hub.Waiter
	var err error
	if r.NoRetry {
		sub, err = retry.SubscribeOnce(subCtx, channel, l.cfg.Policy)
	} else {
		sub, err = retry.Subscribe(subCtx, channel, l.cfg.Policy)
	}
	cancel()
	if err != nil {
		switch {
		case errors.Is(err, hub.ErrClosed):
			err = core.ErrClosed
		case ctx.Err() != nil:
			err = context.Cause(ctx)
		case !deadline.IsZero() && !time.Now().Before(deadline):
			err = retry.Err()
		}
		return l.abandon(ctx, q, w, err)
	}
	acquired := false
	defer func() { sub.Close(acquired) }()
	if q != nil {
		// An unlock message while a goroutine of this client holds the
		// lock or is being handed it (typically after our own hand-off)
		// cannot be for any local waiter: that holder's release hands over
		// or wakes the oldest. Don't get woken for it; the queue's waiters
		// share the answer.
		sub.PassOverWhen(q, func() bool {
			q.mu.Lock()
			defer q.mu.Unlock()
			return q.releasing == 0 && (q.pending > 0 || l.rt.HeldLocally(l.cfg.Name))
		})
	}

	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	woken := false // by a message or a local wake-up, not a timer
	heard := false // by a message
	for {
		backoff := time.Until(retryAt)
		state, attempt := parked, backoff <= 0
		var yieldLeft time.Duration
		if q != nil {
			q.mu.Lock()
			state = w.state
			busy := l.busy(q, field)
			if heard && q.releasing > 0 {
				q.earlyHeard = true
			}
			if now := time.Now(); q.yielding(now) {
				if q.standBack {
					if q.standingBack(heard, l.e.standBackFor) {
						busy = true
					}
				} else if woken {
					// The release message (or a local wake-up) came: the
					// streak's end is known everywhere now.
					q.yieldUntil = time.Time{}
				} else {
					busy, yieldLeft = true, q.yieldUntil.Sub(now)
				}
			}
			attempt = state == parked && backoff <= 0 && (!busy || l.reentering(field))
			if attempt {
				w.state = trying
			} else if state == parked && backoff <= 0 && q.releasing > 0 {
				// Woken, perhaps by our own release's message, before the
				// registry knows the lock is free: that release wakes
				// the oldest waiter when it is done.
				q.deferred = true
			}
			q.mu.Unlock()
		}

		sleep := l.rt.WatchdogTimeout()
		switch {
		case state == handed:
			acquired = true
			ob.HandOff = true
			l.take(base, q, w, h)
			return l.finish(ctx, h)
		case state == unknown:
			held, err := l.resolveUnknown(ctx, q, w)
			if err != nil {
				// abandon gives back a lock the hand-off may have given w.
				return l.abandon(ctx, q, w, err)
			}
			if held {
				acquired = true
				ob.HandOff = true
				l.take(base, q, w, h)
				return l.finish(ctx, h)
			}
			continue
		case attempt:
			start := time.Now()
			ttl, ok, value, err := l.tryAcquire(ctx, field, lease, r, pend, deadline, &h.unsure)
			ob.Try(ok, err)
			if ok && pend != nil && !pend.ran.IsZero() {
				// The lost try ran: its lease counts from its send.
				start, pend.ran = pend.ran, time.Time{}
			}
			d, again := time.Duration(0), false
			if !r.NoRetry {
				d, again = retry.After(ctx, err)
			}
			if q != nil {
				q.mu.Lock()
				if ok || err != nil && !again {
					q.remove(w)
				} else {
					w.state, w.owesUndo = parked, pend.owes()
				}
				switch {
				case ok && q.standBack:
					// Our turn came (a probe found the lock free).
					q.endStandBack()
				case !ok && q.standBack:
					// Held elsewhere: its release's message comes next;
					// should it be lost, probe again later.
					q.armProbe(yieldWindow)
				}
				q.mu.Unlock()
			}
			switch {
			case again:
				retryAt = time.Now().Add(d)
				backoff = d
			case err != nil:
				return false, err
			case ok:
				acquired = true
				return l.acquired(ctx, base, h, field, watchdog, lease, start, value)
			case sub.Err() != nil:
				// Redis refused the channel when the hub subscribed it
				// again (an ACL changed): no release message can come.
				// Fail as a refused first subscribe does.
				return l.abandon(ctx, q, w, sub.Err())
			default:
				retry.Reset()
				sleep = l.sleepFor(ttl)
			}
		}
		if backoff > 0 {
			sleep = backoff
		}
		if yieldLeft > 0 {
			sleep = min(sleep, yieldLeft)
		}
		if !deadline.IsZero() {
			left := time.Until(deadline)
			if left <= 0 {
				// Out of wait while retrying: nobody could tell whether
				// the lock was free, so say why rather than "held".
				return l.abandon(ctx, q, w, retry.Err())
			}
			sleep = min(sleep, left)
		}
		timer.Reset(sleep)
		woken, heard = false, false
		select {
		case <-sub.C():
			// A message (or a resubscription) means Redis answers: a
			// back-off ends here.
			woken, heard, retryAt = true, true, time.Time{}
		case <-w.nudge:
			woken, retryAt = true, time.Time{}
		case <-timer.C:
		case <-ctx.Done():
			return l.abandon(ctx, q, w, context.Cause(ctx))
		case <-l.rt.Done().Done():
			return l.abandon(ctx, q, w, core.ErrClosed)
		}
	}
}

// reentering reports whether field holds the lock through this client, so
// that an acquisition for it is a re-entry. A re-entry never waits for local
// waiters or another local owner: none can get the lock before field lets
// go, and the registry may still list the owner that just handed the lock
// to field (its unlock has not processed the reply yet), which would make
// the re-entry sleep, unwoken, until a timer (up to a watchdog period) ran
// out.
func (l *Lock) reentering(field string) bool {
	return l.rt.Holding(l.cfg.Name, field)
}

// busy reports whether another owner of this client holds the lock or is
// being handed it; called with q.mu held.
func (l *Lock) busy(q *queue, field string) bool {
	return q.pending > 0 || l.rt.HeldByOther(l.cfg.Name, field)
}

// take registers a lock handed to w in h, whose context keeps base's
// values, and leaves the queue. A hold passed on to w (Lock.passOn) is
// registered already.
func (l *Lock) take(base context.Context, q *queue, w *waiter, h *Hold) {
	q.mu.Lock()
	passed := w.passed
	h.value = w.value
	q.mu.Unlock()
	if !passed {
		l.register(base, h, w.field, w.watchdog, w.lease, w.start)
	} else {
		l.rt.Taken(base, &h.Hold, l.cfg.Kind)
	}
	q.mu.Lock()
	q.pending--
	q.remove(w)
	q.mu.Unlock()
}

// resolveUnknown reads from Redis whether a hand-off whose reply was lost
// made w the holder (and, for an object with ValueScripts, the value it
// gave w). It gives up with the cause when ctx is done or the client
// closes; the caller then abandons w, which gives back a lock the hand-off
// may have given it.
func (l *Lock) resolveUnknown(ctx context.Context, q *queue, w *waiter) (bool, error) {
	for attempt := 1; ; attempt++ {
		dctx, cancel := l.rt.Detached(ctx)
		cv, err := core.Bounded(dctx, func(ctx context.Context) (countValue, error) {
			return l.countValue(ctx, w.field)
		})
		cancel()
		if err == nil {
			q.mu.Lock()
			defer q.mu.Unlock()
			if cv.count > 0 {
				// The hand-off happened; its lease counts from the first
				// send of the release (w.start, set by release). w was
				// parked, holding nothing, so the count is the hand-off's
				// and the latest value its.
				w.state, w.value = handed, cv.value
				return true, nil
			}
			q.pending--
			w.state = parked
			w.wake()
			return false, nil
		}
		// Never fall back to an acquire here: if the hand-off happened, it
		// would count a second hold.
		l.rt.Logger().Warn("redisson: checking a hand-off failed; retrying", "lock", l.cfg.Name, "err", err)
		select {
		case <-time.After(min(time.Duration(attempt)*50*time.Millisecond, time.Second)):
		case <-ctx.Done():
			return false, context.Cause(ctx)
		case <-l.rt.Done().Done():
			return false, core.ErrClosed
		}
	}
}

// abandon takes w out of the queue when its caller gives up. A hand-off in
// flight is waited for (it is bounded by the client's timeout); a lock
// handed over meanwhile is released again, passing it on.
func (l *Lock) abandon(ctx context.Context, q *queue, w *waiter, err error) (bool, error) {
	if q == nil {
		return false, err
	}
	q.mu.Lock()
	for w.state == handing {
		q.mu.Unlock()
		<-w.nudge
		q.mu.Lock()
	}
	state, passed := w.state, w.passed
	q.remove(w)
	if passed {
		q.pending--
	}
	q.mu.Unlock()
	if passed {
		// The hold is w's, registered: release it as its holder would,
		// which may pass it on again. Its acquisition reports failure, and
		// its end goes unreported: only a waiter that takes a passed hold
		// stamps its start (core.Runtime.Taken).
		dctx, cancel := l.rt.Detached(ctx)
		defer cancel()
		var res releaseResult
		uerr := l.unlock(dctx, w.hold, &res)
		if errors.Is(uerr, core.ErrClosed) {
			// The client is closing (which ended the hold, or made unlock
			// refuse): give the lock back as finish does, or it would stay
			// held for a lease. Nobody else knows the field.
			l.undo(ctx, l.Field(w.hold.owner), l.rt.WatchdogTimeout())
			uerr = nil
		}
		if uerr != nil && !errors.Is(uerr, core.ErrNotOwner) && !errors.Is(uerr, core.ErrLockLost) {
			l.rt.Logger().Warn("redisson: giving back a lock passed to a waiter that left failed; it will expire",
				"lock", l.cfg.Name, "err", uerr)
		}
		return false, err
	}
	if state == handed || state == unknown {
		dctx, cancel := l.rt.Detached(ctx)
		defer cancel()
		if _, uerr := l.release(dctx, q, w.field, w.lease); uerr != nil && !errors.Is(uerr, core.ErrNotOwner) {
			l.rt.Logger().Warn("redisson: giving back a lock handed to a waiter that left failed; it will expire",
				"lock", l.cfg.Name, "err", uerr)
		}
		q.mu.Lock()
		q.pending--
		q.releasing--
		q.deferred = false
		q.mu.Unlock()
		// The release above may have published while the hand-off still
		// counted as pending, so that local waiters were passed over: wake
		// the oldest now that the lock is not busy here any more.
		l.wakeLocal()
	}
	return false, err
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

// countValue is a hold count with, for an object with ValueScripts, the
// lock's latest acquisition value.
type countValue struct {
	count int
	value int64
}

// countValue reads field's hold count on the master, with the latest value
// when the object's acquisitions carry values.
func (l *Lock) countValue(ctx context.Context, field string) (countValue, error) {
	if l.values != nil {
		n, v, err := l.values.CountValue(ctx, field)
		return countValue{n, v}, err
	}
	n, err := l.cfg.Scripts.Count(ctx, field)
	return countValue{count: n}, err
}

// acquireOnce sends the acquire script r calls for: the waiting variant
// when r waits in a Redis queue, else the plain (try-once) one.
func (l *Lock) acquireOnce(ctx context.Context, field string, lease time.Duration, r Request) (AcquireReply, error) {
	if qs, ok := l.queueScripts(r); ok {
		return qs.AcquireQueued(ctx, field, lease, r.queueWait())
	}
	return l.cfg.Scripts.Acquire(ctx, field, lease)
}

// pendingUndo is what a waiting acquisition owes for a try whose reply was
// lost: whether it ran must be read before the next try (a second try
// would count a second hold), or, when the wait ends first, undone.
type pendingUndo struct {
	start time.Time     // the lost try's send, from which its lease counts
	lease time.Duration // the lost try's lease
	// ran is set by the resolution that found the lost try ran: the hold
	// is the caller's, with its lease counted from ran.
	ran time.Time
}

// owes reports whether p holds a lost try not yet resolved; false for nil.
func (p *pendingUndo) owes() bool { return p != nil && !p.start.IsZero() }

// tryAcquire runs the acquire script once: ok with the acquisition's value,
// or the holder's TTL. With pend (a waiting acquisition that retries), a
// try whose reply was lost is not undone but left in pend, and the next
// call first reads whether it ran (pend.ran is then set, and the call
// reports the lock acquired) or not (it tries); the read failing fails
// that call. A background undo of field runs first; when the wait's
// deadline (zero: none) comes before it ends, the call tries nothing and
// reports the lock not acquired.
func (l *Lock) tryAcquire(ctx context.Context, field string, lease time.Duration, r Request, pend *pendingUndo, deadline time.Time, unsure *bool) (time.Duration, bool, int64, error) {
	if free, err := l.awaitUndo(ctx, field, deadline); err != nil || !free {
		return 0, false, 0, err
	}
	if pend.owes() {
		rctx, cancel := l.owedCtx(ctx)
		cv, err := l.countValue(rctx, field)
		cancel()
		if err != nil {
			return 0, false, 0, err
		}
		// Nobody else can give this field a hold: no hand-off reaches a
		// waiter that owes a resolution (firstHandOff).
		ran := pend.start
		*pend = pendingUndo{}
		if cv.count > 0 {
			pend.ran = ran
			return 0, true, cv.value, nil
		}
	}
	start := time.Now()
	if _, queued := l.queueScripts(r); queued && l.cfg.RedisQueue {
		ctx = l.queuedTryCtx(ctx)
	}
	var o AcquireReply
	var err error
	if cctx, pin, inline := l.rt.InlineFor(ctx, l.cfg.Name); inline {
		o, err = l.try(cctx, field, lease, r)
		pin.Done()
	} else {
		var p *core.Pending[AcquireReply]
		o, err, p = core.Settle(l.rt, ctx, func(ctx context.Context) (AcquireReply, error) {
			return l.try(ctx, field, lease, r)
		})
		if p != nil {
			// ctx ended with the try on the wire: whatever it does in
			// Redis is compensated after it, once its outcome is known.
			done := l.settleLater(ctx, field, lease, r, p)
			if errors.Is(ctx.Err(), context.Canceled) {
				// A cancelled call leaves nothing behind when it returns.
				l.awaitDone(done)
			}
			return 0, false, 0, err
		}
	}
	ttl, ok, value, sync := o.TTL, o.OK, o.Value, o.Sync
	if err != nil {
		if isTransport(err) && !core.NotSent(err) && !l.rt.Holding(l.cfg.Name, field) && !l.overlaps(field) {
			// The script may have run with its reply lost. Undo it while we
			// are sure no earlier hold of ours can be hurt: a non-owner's
			// release changes nothing. When the caller's deadline passed
			// before the reply (the server may not answer at all; a RedLock
			// moves on to the next one), the undo runs in the background
			// and the owner's next acquire waits for it; otherwise (a read
			// timeout, a cancelled call: the server may well answer) it is
			// done before the call returns, leaving nothing behind.
			switch {
			case pend != nil && ctx.Err() == nil:
				// Read as "not run" by the next try, it may still run
				// later all the same.
				*unsure = true
				*pend = pendingUndo{start: start, lease: lease}
			case errors.Is(ctx.Err(), context.DeadlineExceeded):
				*unsure = true
				l.undoLater(ctx, field, lease, l.rt.RequestID())
			default:
				*unsure = true
				l.undo(ctx, field, lease)
			}
		} else if isTransport(err) && !core.NotSent(err) {
			// Not undone (an earlier hold of ours shares the counts): a
			// retry could count a second hold on top of a lost one.
			err = core.Final(err)
		}
		return 0, false, 0, l.typed(ctx, err)
	}
	if !ok {
		return ttl, false, 0, nil
	}
	if sync.Failed() && l.rt.Sync().FailOnNoSync {
		if !l.undo(ctx, field, lease) {
			// The undo's reply was lost: a copy of it still on its way
			// could release a hold a retry takes. End the wait.
			return 0, false, 0, core.Final(fmt.Errorf("%w; undoing the acquire got no reply", sync.Err(l.rt.Sync().Timeout)))
		}
		return 0, false, 0, sync.Err(l.rt.Sync().Timeout)
	}
	return 0, true, value, nil
}

// queuedTryCtx bounds a try that queues its caller in Redis (a fair lock's)
// by the client's Timeout when ctx's deadline comes sooner. Cut at a
// deadline of a few ms, the try would leave an entry whose fate only a
// background settle and leave could decide: a gone waiter at the head holds
// everyone behind it back until its entry turns stale (the holder's lease
// plus its wait), and a caller looping on such deadlines queues faster than
// those leaves run. Run to its reply, the entry is known and the caller's
// own leave takes it out before the call returns, as Java's tryLock does.
// So a short deadline can be overrun by a round trip or two, and by the
// client's Timeout at most when Redis stalls. Cancellation is kept for a
// ctx without deadline.
func (l *Lock) queuedTryCtx(ctx context.Context) context.Context {
	dl, ok := ctx.Deadline()
	if !ok {
		return ctx
	}
	return l.rt.Within(context.WithoutCancel(ctx), max(time.Until(dl), l.rt.Timeout()))
}

// try sends the acquire script once and, when the server had closed the
// connection before it (a stale connection), finds out whether it ran.
func (l *Lock) try(ctx context.Context, field string, lease time.Duration, r Request) (AcquireReply, error) {
	o, err := l.acquireOnce(ctx, field, lease, r)
	var stale *core.StaleConnError
	if errors.As(err, &stale) && !l.overlaps(field) {
		// Redis counts one more hold for us than we know of exactly when
		// the script ran: ask, and try again only if it did not. The same
		// read gives the value the lost reply carried: nobody else can
		// have acquired since, while the count says we hold the lock.
		before := l.rt.HoldDepth(l.cfg.Name, field)
		cv, cerr := l.countValue(ctx, field)
		switch {
		case cerr != nil:
			err = cerr
		case cv.count == before+1:
			return AcquireReply{OK: true, Value: cv.value}, nil
		case cv.count == before:
			o, err = l.acquireOnce(ctx, field, lease, r)
		}
	}
	return o, err
}

// overlaps reports whether field's counts in Redis are shared with other
// holds of this client (Config.Overlaps).
func (l *Lock) overlaps(field string) bool {
	return l.cfg.Overlaps != nil && l.cfg.Overlaps(field)
}

// typed turns a WRONGTYPE failure into an error that says what the key
// holds instead.
func (l *Lock) typed(ctx context.Context, err error) error {
	// Only the bare WRONGTYPE reply: an error wrapping it already names
	// what is in the way (the fair lock checks its three keys).
	if err != core.ErrWrongType {
		return err
	}
	return core.WrongTypeError(ctx, l.rt.Redis(), l.cfg.Name, "hash")
}

// undo releases one hold taken by an acquire whose outcome must not stand.
//
// An undo that gets no reply (the master is failing over, say) goes on in
// the background, retried as a waiting call's tries are (undoLater): the
// owner's next acquire waits for it, so that its acquire, reaching the new
// master, cannot count a second hold on top of the one the lost acquire may
// have left there. It reports whether no copy of the undo can still run
// later: false when one was sent and its reply lost.
func (l *Lock) undo(ctx context.Context, field string, lease time.Duration) bool {
	dctx, cancel := l.rt.Detached(ctx)
	defer cancel()
	id := l.rt.RequestID()
	_, _, err := l.releaseOnce(dctx, field, lease, id, nil, false)
	if err == nil || errors.Is(err, core.ErrNoSyncedReplicas) {
		return true // done (unacknowledged by the replicas, but it ran)
	}
	if l.rt.Retries() && core.Retryable(err) && l.rt.Done().Err() == nil {
		// Sent without a reply, it may have run: the same id makes a
		// second run return the first one's result (the unlock latch).
		l.undoLater(ctx, field, lease, id)
	} else {
		l.rt.Logger().Warn("redisson: undoing an acquire failed; the lease will expire",
			"lock", l.cfg.Name, "err", err)
	}
	return core.NotSent(err) || core.Rejected(err)
}

// undoLater runs an undo (the release with request id) in the background
// (see later) and returns at once. A try that gets no reply for a reason
// that may pass is retried as a waiting call's tries are. Until it is done
// an acquire of field waits for it (awaitUndo): run after that acquire, it
// would release the new hold.
func (l *Lock) undoLater(ctx context.Context, field string, lease time.Duration, id string) {
	l.later(ctx, field, func(bg context.Context) { l.runUndo(bg, field, lease, id) })
}

// later runs fn for field in the background, registered with the runtime
// so that Close waits for it (bounded), after the background work of field
// already registered (in the order of the acquires it compensates), and
// returns a channel closed when fn has run. Until then an acquire of field
// waits for it (awaitUndo), and so does the compensation of a later
// acquire. bg keeps ctx's values only. Once Close has begun fn runs on the
// caller's goroutine, after the registered work (bounded by the client's
// timeout): Close waits for nothing new.
func (l *Lock) later(ctx context.Context, field string, fn func(bg context.Context)) chan struct{} {
	key := undoKey{l.queueKey, field}
	done := make(chan struct{})
	e := l.e
	e.undoMu.Lock()
	prev := e.undos[key]
	w, err := l.rt.Begin()
	if err == nil {
		if e.undos == nil {
			e.undos = make(map[undoKey]chan struct{})
		}
		e.undos[key] = done
	}
	e.undoMu.Unlock()
	bg := context.WithoutCancel(ctx)
	if err != nil {
		if prev != nil {
			l.awaitDone(prev)
		}
		fn(bg)
		close(done)
		return done
	}
	go func() {
		defer w.End()
		defer func() {
			e.undoMu.Lock()
			if e.undos[key] == done {
				delete(e.undos, key)
			}
			e.undoMu.Unlock()
			close(done)
		}()
		if prev != nil {
			<-prev
		}
		fn(bg)
	}()
	return done
}

// awaitDone waits for background work's done channel, bounded by how long
// Close would wait for it: a cancelled call does not stay past that while
// Redis does not answer (the work goes on, and Close waits for it).
func (l *Lock) awaitDone(done <-chan struct{}) {
	t := time.NewTimer(l.rt.CloseWait())
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
	}
}

// runUndo sends the release with request id until it ran, a try that gets
// no reply for a reason that may pass being retried as a waiting call's
// tries are, or until Close returns (nothing may be sent then).
func (l *Lock) runUndo(bg context.Context, field string, lease time.Duration, id string) {
	retry := l.rt.RetryOf(l.cfg.Kind, l.cfg.Name)
	for {
		if l.rt.Stopped().Err() != nil {
			return // Close returned: nothing may be sent
		}
		uctx, cancel := l.rt.Undoing(bg)
		_, _, err := l.releaseOnce(uctx, field, lease, id, nil, false)
		cancel()
		if err == nil || errors.Is(err, core.ErrNoSyncedReplicas) {
			return // it ran
		}
		d, again := time.Duration(0), false
		if l.rt.Done().Err() == nil {
			d, again = retry.After(bg, err)
		}
		if !again {
			l.rt.Logger().Warn("redisson: undoing an acquire failed; the lease will expire",
				"lock", l.cfg.Name, "err", err)
			return
		}
		t := time.NewTimer(d)
		select {
		case <-t.C:
		case <-l.rt.Done().Done():
			t.Stop()
		}
	}
}

// settleLater compensates, in the background (see later), a try whose
// caller stopped waiting while it was on the wire, once its outcome p is
// known: a hold it took is undone; a try that did not take the lock needs
// nothing (a fair lock's queue entry goes with leaveQueue, sequenced after
// this). Sent before the try has run, the undo would find nothing to
// release and the try would then take the lock for nobody (and a fair
// lock's leaveQueue would come before the try queued the waiter again).
//
// A try that got no reply also gets lookLate's second look when its owner
// is fresh (no WithOwner).
//
// The outcome is waited for as long as go-redis takes to end the call
// (Settle), or until Close has stopped waiting, when nothing may be sent
// any more (the try, still unsent then, never is). A try that ended
// without a reply (the connection broke, go-redis' ReadTimeout passed and
// it closed the connection) may have run: it is undone as a lost reply is;
// docs/giving-up.md says what a command still in the network then does.
func (l *Lock) settleLater(ctx context.Context, field string, lease time.Duration, r Request, p *core.Pending[AcquireReply]) chan struct{} {
	id := l.rt.RequestID()
	return l.later(ctx, field, func(bg context.Context) {
		o, err, known := p.Wait(l.rt.Stopped())
		switch {
		case !known:
			return // Close returned: nothing may be sent
		case err == nil && !o.OK:
			return // it ran and took nothing
		case err == nil:
			// It took a hold (a re-entry's included): give exactly that
			// one back, re-applying the lease of the owner's hold that
			// lives on (the release script sets it when the count stays
			// above 0), not the abandoned try's.
			lease = l.rt.LeaseOf(l.cfg.Name, field, lease)
		case core.NotSent(err) || !isTransport(err):
			return // it never reached Redis, or Redis refused it
		case l.rt.Holding(l.cfg.Name, field) || l.overlaps(field):
			// Unknown, and an undo could release a hold this client
			// has: leave it to its lease.
			l.rt.Logger().Warn("redisson: an abandoned acquire got no reply; if it ran, its hold lives until its lease ends",
				"lock", l.cfg.Name, "err", err)
			return
		}
		l.runUndo(bg, field, lease, id)
		if err != nil && r.Owner == 0 {
			// No reply: a copy of the try may still be on its way
			// (lookLate, which starts after this work has ended).
			l.lookLate(bg, field, lease, r)
		}
	})
}

// undoPending reports whether an undo of field runs in the background.
func (l *Lock) undoPending(field string) bool { return l.undoRunning(field) != nil }

// undoRunning returns the done channel of an undo running in the
// background that an acquire of field must wait for, or nil: one of field,
// or, when counts overlap between identities (Config.Overlaps), one of any
// identity of the object, whose undo could release counts field takes.
func (l *Lock) undoRunning(field string) chan struct{} {
	l.e.undoMu.Lock()
	defer l.e.undoMu.Unlock()
	if done := l.e.undos[undoKey{l.queueKey, field}]; done != nil {
		return done
	}
	if l.cfg.Overlaps != nil {
		for k, done := range l.e.undos {
			if k.object == l.queueKey {
				return done
			}
		}
	}
	return nil
}

// owedCtx bounds the resolution a waiting acquisition sends itself by the
// client's timeout and by ctx: cut short, it stays owed and the wait's end
// hands it to the background, so the call does not outlive its ctx.
func (l *Lock) owedCtx(ctx context.Context) (context.Context, context.CancelFunc) {
	dctx, cancel := l.rt.Detached(ctx)
	cctx, cancelCause := context.WithCancelCause(dctx)
	// With ctx's cause, so that the error says why (a deadline, say).
	stop := context.AfterFunc(ctx, func() { cancelCause(context.Cause(ctx)) })
	return cctx, func() {
		stop()
		cancelCause(nil)
		cancel()
	}
}

// awaitUndo waits until no undo an acquire of field must wait for runs in
// the background (undoRunning), or ctx is done, or the client closes. It
// reports false when deadline (zero: none) comes first: a TryLock's wait
// bounds this wait too (an undo retried through an outage can take
// seconds).
func (l *Lock) awaitUndo(ctx context.Context, field string, deadline time.Time) (bool, error) {
	var over <-chan time.Time
	for {
		done := l.undoRunning(field)
		if done == nil {
			return true, nil
		}
		if over == nil && !deadline.IsZero() {
			t := time.NewTimer(time.Until(deadline))
			defer t.Stop()
			over = t.C
		}
		select {
		case <-done:
		case <-over:
			return false, nil
		case <-ctx.Done():
			return false, context.Cause(ctx)
		case <-l.rt.Done().Done():
			return false, core.ErrClosed
		}
	}
}

func (l *Lock) register(ctx context.Context, h *Hold, field string, watchdog bool, lease time.Duration, start time.Time) {
	var kind renewal.Kind
	if watchdog {
		kind = l.cfg.Renew
	}
	l.rt.Acquired(ctx, &h.Hold, core.Acquire{Key: l.cfg.Name, Owner: field, Object: l.cfg.Kind, Kind: kind, TTL: lease, Start: start, OnEnd: l.onEnd})
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
	if l.rt.Done().Err() == nil {
		return true, nil
	}
	field := l.Field(h.owner)
	l.undo(ctx, field, l.rt.LeaseOf(l.cfg.Name, field, l.rt.WatchdogTimeout()))
	return false, core.ErrClosed
}

// holdEnded wakes a local waiter when a hold ends without a release (lost,
// force-unlocked): nothing is published then, and local waiters do not ask
// Redis while the hold lasted.
func (l *Lock) holdEnded(cause error) {
	if errors.Is(cause, context.Canceled) {
		return
	}
	l.wakeLocal()
}

// wakeLocal wakes the oldest parked local waiter, if any.
func (l *Lock) wakeLocal() {
	ref, ok := l.e.queues.peek(l.queueKey)
	if !ok {
		return
	}
	defer ref.release()
	q := ref.value()
	q.mu.Lock()
	if w := q.firstParked(); w != nil {
		w.wake()
	}
	q.mu.Unlock()
}
