package engine

import (
	"context"
	"errors"
	"time"

	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/internal/inflight"
)

// Lost-reply recovery: a try may run in Redis although its reply never
// came, or after its caller stopped waiting. The engine counts on neither
// outcome: a waiting call resolves a lost try before its next one
// (pendingUndo), a try its caller left is compensated once its outcome is
// known (settleLater), and a copy that may still be on its way is looked
// for once more (lookLate).

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
	w, err := l.rt.Inflight().Begin()
	if err != nil {
		return
	}
	bg := context.WithoutCancel(ctx)
	go func() {
		defer w.End()
		for done := l.undoRunning(field); done != nil; done = l.undoRunning(field) {
			select {
			case <-done:
			case <-l.rt.Inflight().Drained().Done():
				return
			}
		}
		t := time.NewTimer(l.rt.Timeout())
		select {
		case <-t.C:
		case <-l.rt.Closed():
			t.Stop()
		}
		if l.rt.Inflight().Drained().Err() != nil {
			return
		}
		uctx, cancel := l.rt.Inflight().ForUndo(bg)
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
			l.runLeave(bg, qs, field, r.queueWait())
		}
	}()
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

// resolveOwed reads whether the try pend owes a resolution for ran: done
// with the lock acquired when it did (pend.ran is then set), or with the
// read's error; otherwise the caller tries.
func (l *Lock) resolveOwed(ctx context.Context, field string, pend *pendingUndo) (o AcquireReply, done bool, err error) {
	rctx, cancel := l.owedCtx(ctx)
	cv, err := l.countValue(rctx, field)
	cancel()
	if err != nil {
		return AcquireReply{}, true, err
	}
	// Nobody else can give this field a hold: no hand-off reaches a
	// waiter that owes a resolution (firstHandOff).
	ran := pend.start
	*pend = pendingUndo{}
	if cv.count > 0 && l.adoptable(field) {
		pend.ran = ran
		return AcquireReply{OK: true, Value: cv.value}, true, nil
	}
	return AcquireReply{}, false, nil
}

// lostTry deals with a try sent at start that failed with err, and returns
// the error the try reports. When the script may have run with its reply
// lost, it is undone while we are sure no earlier hold of ours can be
// hurt (a non-owner's release changes nothing), and the acquisition is
// unsure from then on. A waiting call that retries (pend) leaves it to its
// next try to resolve. When the caller's deadline passed before the reply
// (the server may not answer at all; a RedLock moves on to the next one),
// the undo runs in the background and the owner's next acquire waits for
// it; otherwise (a read timeout, a cancelled call: the server may well
// answer) it is done before the call returns, leaving nothing behind.
func (l *Lock) lostTry(ctx context.Context, field string, lease time.Duration, pend *pendingUndo, start time.Time, unsure *bool, err error) error {
	if !isTransport(err) || core.NotSent(err) {
		return err
	}
	if l.rt.Holds().Holding(l.cfg.Name, field) || l.overlaps(field) {
		// Not undone (an earlier hold of ours shares the counts): a
		// retry could count a second hold on top of a lost one.
		return core.Final(err)
	}
	*unsure = true
	switch {
	case pend != nil && ctx.Err() == nil:
		// Read as "not run" by the next try, it may still run later all
		// the same.
		*pend = pendingUndo{start: start, lease: lease}
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		l.undoLater(ctx, field, lease, l.rt.RequestID())
	default:
		l.undo(ctx, field, lease)
	}
	return err
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
	dctx, cancel := l.rt.ForRelease(ctx)
	defer cancel()
	id := l.rt.RequestID()
	_, _, err := l.releaseOnce(dctx, field, lease, id, nil, false)
	if err == nil || errors.Is(err, core.ErrNoSyncedReplicas) {
		return true // done (unacknowledged by the replicas, but it ran)
	}
	if l.rt.Retry().On() && core.Retryable(err) && l.rt.Lifetime().Err() == nil {
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

// runUndo sends the release with request id until it ran, a try that gets
// no reply for a reason that may pass being retried as a waiting call's
// tries are, or until Close returns (nothing may be sent then).
func (l *Lock) runUndo(bg context.Context, field string, lease time.Duration, id string) {
	retry := l.rt.Retry().Budget(l.cfg.Kind, l.cfg.Name)
	for {
		if l.rt.Inflight().Drained().Err() != nil {
			return // Close returned: nothing may be sent
		}
		uctx, cancel := l.rt.Inflight().ForUndo(bg)
		_, _, err := l.releaseOnce(uctx, field, lease, id, nil, false)
		cancel()
		if err == nil || errors.Is(err, core.ErrNoSyncedReplicas) {
			return // it ran
		}
		if !l.backOff(bg, &retry, err) {
			l.rt.Logger().Warn("redisson: undoing an acquire failed; the lease will expire",
				"lock", l.cfg.Name, "err", err)
			return
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
func (l *Lock) settleLater(ctx context.Context, field string, lease time.Duration, r Request, p *inflight.Pending[AcquireReply]) chan struct{} {
	id := l.rt.RequestID()
	return l.later(ctx, field, func(bg context.Context) {
		o, err, known := p.Wait(l.rt.Inflight().Drained())
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
			lease = l.rt.Holds().LeaseOf(l.cfg.Name, field, lease)
		case core.NotSent(err) || !isTransport(err):
			return // it never reached Redis, or Redis refused it
		case l.rt.Holds().Holding(l.cfg.Name, field) || l.overlaps(field):
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

// owedCtx bounds the resolution a waiting acquisition sends itself by the
// client's timeout and by ctx: cut short, it stays owed and the wait's end
// hands it to the background, so the call does not outlive its ctx.
func (l *Lock) owedCtx(ctx context.Context) (context.Context, context.CancelFunc) {
	dctx, cancel := l.rt.ForRelease(ctx)
	cctx, cancelCause := context.WithCancelCause(dctx)
	// With ctx's cause, so that the error says why (a deadline, say).
	stop := context.AfterFunc(ctx, func() { cancelCause(context.Cause(ctx)) })
	return cctx, func() {
		stop()
		cancelCause(nil)
		cancel()
	}
}
