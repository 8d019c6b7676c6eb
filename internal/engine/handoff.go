package engine

import (
	"context"
	"errors"
	"time"

	"github.com/goredisson/redisson/internal/conns"
	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/internal/localq"
)

// reentering reports whether field holds the lock through this client, so
// that an acquisition for it is a re-entry. A re-entry never waits for local
// waiters or another local owner: none can get the lock before field lets
// go, and the registry may still list the owner that just handed the lock
// to field (its unlock has not processed the reply yet), which would make
// the re-entry sleep, unwoken, until a timer (up to a watchdog period) ran
// out.
func (l *Lock) reentering(field string) bool {
	return l.rt.Holds().Holding(l.cfg.Name, field)
}

// take registers a lock handed to w in h, whose context keeps base's
// values, and leaves the queue. A hold passed on to w (Lock.passOn) is
// registered already.
func (l *Lock) take(base context.Context, q *localq.Queue[*Hold], w *localq.Waiter[*Hold], h *Hold) {
	passed, value := q.HandedTo(w)
	h.value = value
	if !passed {
		l.register(base, h, w.Field, w.Watchdog, w.Lease, w.Start())
	} else {
		l.rt.Holds().Taken(base, &h.Hold, l.cfg.Kind)
	}
	q.Taken(w)
}

// resolveUnknown reads from Redis whether a hand-off whose reply was lost
// made w the holder (and, for an object with ValueScripts, the value it
// gave w). It gives up with the cause when ctx is done or the client
// closes; the caller then abandons w, which gives back a lock the hand-off
// may have given it.
func (l *Lock) resolveUnknown(ctx context.Context, q *localq.Queue[*Hold], w *localq.Waiter[*Hold]) (bool, error) {
	for attempt := 1; ; attempt++ {
		dctx, cancel := l.rt.ForRelease(ctx)
		cv, err := conns.Bounded(dctx, func(ctx context.Context) (countValue, error) {
			return l.countValue(ctx, w.Field)
		})
		cancel()
		if err == nil {
			// When the hand-off happened, its lease counts from the first
			// send of the release (w.Start, set by release). w was parked,
			// holding nothing, so the count is the hand-off's and the
			// latest value its.
			q.Resolved(w, cv.count > 0, cv.value)
			return cv.count > 0, nil
		}
		// Never fall back to an acquire here: if the hand-off happened, it
		// would count a second hold.
		l.rt.Logger().Warn("redisson: checking a hand-off failed; retrying", "lock", l.cfg.Name, "err", err)
		select {
		case <-time.After(min(time.Duration(attempt)*50*time.Millisecond, time.Second)):
		case <-ctx.Done():
			return false, context.Cause(ctx)
		case <-l.rt.Closed():
			return false, core.ErrClosed
		}
	}
}

// abandon takes w out of the queue when its caller gives up. A hand-off in
// flight is waited for (it is bounded by the client's timeout); a lock
// handed over meanwhile is released again, passing it on.
func (l *Lock) abandon(ctx context.Context, q *localq.Queue[*Hold], w *localq.Waiter[*Hold], err error) (bool, error) {
	if q == nil {
		return false, err
	}
	state, passed := q.Leave(w)
	if passed {
		// The hold is w's, registered: release it as its holder would,
		// which may pass it on again. Its acquisition reports failure, and
		// its end goes unreported: only a waiter that takes a passed hold
		// stamps its start (core.Runtime.Taken).
		dctx, cancel := l.rt.ForRelease(ctx)
		defer cancel()
		var res releaseResult
		uerr := l.unlock(dctx, w.Hold, &res)
		if errors.Is(uerr, core.ErrClosed) {
			// The client is closing (which ended the hold, or made unlock
			// refuse): give the lock back as finish does, or it would stay
			// held for a lease. Nobody else knows the field.
			l.undo(ctx, l.Field(w.Hold.owner), l.rt.WatchdogTimeout())
			uerr = nil
		}
		if uerr != nil && !errors.Is(uerr, core.ErrNotOwner) && !errors.Is(uerr, core.ErrLockLost) {
			l.rt.Logger().Warn("redisson: giving back a lock passed to a waiter that left failed; it will expire",
				"lock", l.cfg.Name, "err", uerr)
		}
		return false, err
	}
	if state == localq.Handed || state == localq.Unknown {
		dctx, cancel := l.rt.ForRelease(ctx)
		defer cancel()
		if _, uerr := l.release(dctx, q, w.Field, w.Lease); uerr != nil && !errors.Is(uerr, core.ErrNotOwner) {
			l.rt.Logger().Warn("redisson: giving back a lock handed to a waiter that left failed; it will expire",
				"lock", l.cfg.Name, "err", uerr)
		}
		q.GaveBack()
		// The release above may have published while the hand-off still
		// counted as pending, so that local waiters were passed over: wake
		// the oldest now that the lock is not busy here any more.
		l.wakeLocal()
	}
	return false, err
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
	ref.value().WakeOldest()
}

// passOn hands h to the oldest parked local waiter without a round trip
// when both hold the lock the same way (the watchdog) and nobody outside
// the engine can know h's owner id: the waiter's hold takes h's owner field
// and lease record (core.Runtime.PassOn), and Redis, which counts one hold
// of that field, stays as it is. Java sees the lock held throughout, as
// with the hand-off script, and no message, as there. It reports false,
// changing nothing, when the release must go to Redis: no such waiter (the
// oldest waits with a fixed lease or its own owner id), the streak's end,
// an undo of the field in flight (it would release the waiter's hold), or
// a record that is not a plain watchdog hold (core.Runtime.PassOn).
//
// An owner id known outside is never passed: its code could re-enter with
// it (WithOwner) and share the hold with the goroutine it went to. Once
// passed, h's Owner answers 0 (Hold.claimID), so the id cannot leak later.
func (l *Lock) passOn(q *localq.Queue[*Hold], h *Hold, field string) bool {
	if l.values != nil || l.rt.Lifetime().Err() != nil || l.undoPending(field) || h.id.Load() != idPrivate {
		return false
	}
	next := q.PassTo(l.undoPending, passable, h.claimID)
	if next == nil {
		return false
	}
	if l.e.beforePass != nil {
		l.e.beforePass()
	}
	ok := l.rt.Holds().PassOn(next.Base, &h.Hold, &next.Hold.Hold, next.Lease)
	q.Passed(next, ok, field, func(to *Hold) { to.owner = h.owner })
	if !ok {
		h.releaseID()
	}
	return ok
}

// passable reports whether a waiter's hold may take a passed one: it has
// one to fill, and nobody outside the engine knows its owner id.
func passable(h *Hold) bool { return h != nil && h.id.Load() == idPrivate }
