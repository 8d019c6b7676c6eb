package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/goredisson/redisson/internal/conns"
	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/internal/inflight"
)

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

// tryAcquire runs the acquire script once: ok with the acquisition's value,
// or the holder's TTL. With pend (a waiting acquisition that retries), a
// try whose reply was lost is not undone but left in pend, and the next
// call first reads whether it ran (pend.ran is then set, and the call
// reports the lock acquired) or not (it tries); the read failing fails
// that call. A background undo of field runs first; when the wait's
// deadline (zero: none) comes before it ends, the call tries nothing and
// reports the lock not acquired.
func (l *Lock) tryAcquire(ctx context.Context, field string, lease time.Duration, r Request, pend *pendingUndo, deadline time.Time, unsure *bool) (AcquireReply, error) {
	if free, err := l.awaitUndo(ctx, field, deadline); err != nil || !free {
		return AcquireReply{}, err
	}
	if pend.owes() {
		if o, done, err := l.resolveOwed(ctx, field, pend); done {
			return o, err
		}
	}
	start := time.Now()
	if _, queued := l.queueScripts(r); queued && l.cfg.RedisQueue {
		ctx = l.queuedTryCtx(ctx)
	}
	o, settling, err := l.sendTry(ctx, field, lease, r)
	switch {
	case settling:
		return AcquireReply{}, err
	case err != nil:
		return AcquireReply{}, l.typed(ctx, l.lostTry(ctx, field, lease, pend, start, unsure, err))
	case !o.OK:
		return AcquireReply{TTL: o.TTL}, nil
	case o.Sync.Failed() && l.rt.Sync().FailOnNoSync:
		if !l.undo(ctx, field, lease) {
			// The undo's reply was lost: a copy of it still on its way
			// could release a hold a retry takes. End the wait.
			return AcquireReply{}, core.Final(fmt.Errorf("%w; undoing the acquire got no reply", o.Sync.Err(l.rt.Sync().Timeout)))
		}
		return AcquireReply{}, o.Sync.Err(l.rt.Sync().Timeout)
	}
	return AcquireReply{OK: true, Value: o.Value}, nil
}

// sendTry sends the try on the caller's goroutine, pinned to a connection,
// when the runtime runs the call inline; otherwise it waits for it as long
// as ctx lasts (inflight.Settle). settling: ctx ended with the try on the
// wire, and whatever it does in Redis is compensated after it, once its
// outcome is known (settleLater).
func (l *Lock) sendTry(ctx context.Context, field string, lease time.Duration, r Request) (o AcquireReply, settling bool, err error) {
	if cctx, pin, inline := l.rt.Conns().Inline(ctx, l.cfg.Name); inline {
		o, err = l.try(cctx, field, lease, r)
		pin.Done()
		return o, false, err
	}
	var p *inflight.Pending[AcquireReply]
	o, p, err = inflight.Settle(l.rt.Inflight(), ctx, func(ctx context.Context) (AcquireReply, error) {
		return l.try(ctx, field, lease, r)
	})
	if p == nil {
		return o, false, err
	}
	done := l.settleLater(ctx, field, lease, r, p)
	if errors.Is(ctx.Err(), context.Canceled) {
		// A cancelled call leaves nothing behind when it returns.
		l.awaitDone(done)
	}
	return AcquireReply{}, true, err
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
	return l.rt.Conns().Within(context.WithoutCancel(ctx), max(time.Until(dl), l.rt.Timeout()))
}

// try sends the acquire script once and, when the server had closed the
// connection before it (a stale connection), finds out whether it ran.
func (l *Lock) try(ctx context.Context, field string, lease time.Duration, r Request) (AcquireReply, error) {
	o, err := l.acquireOnce(ctx, field, lease, r)
	var stale *conns.StaleConnError
	if errors.As(err, &stale) && !l.overlaps(field) {
		// Redis counts one more hold for us than we know of exactly when
		// the script ran: ask, and try again only if it did not. The same
		// read gives the value the lost reply carried: nobody else can
		// have acquired since, while the count says we hold the lock.
		before := l.rt.Holds().HoldDepth(l.cfg.Name, field)
		cv, cerr := l.countValue(ctx, field)
		switch {
		case cerr != nil:
			err = cerr
		case cv.count == before+1 && l.adoptable(field):
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
