package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/internal/holds"
	"github.com/goredisson/redisson/internal/inflight"
)

// ExtendScripts is implemented by the Scripts of an object whose lease is
// more than its hash's TTL: the read-write lock (a read hold's timeout
// keys; a hash shared with other holders, whose leases it must not cut)
// and the group multi-lock (the values' expiry fields). Extend sends
// expireScript for the others.
type ExtendScripts interface {
	// Extend sets field's lease to lease, counted from when Redis runs the
	// script, if field still holds the lock, and reports whether it does.
	// It is sent with replica sync and at most once
	// (core.Runtime.EvalSyncedNoRetry), so that its error tells whether it
	// may have run.
	Extend(ctx context.Context, field string, lease time.Duration) (ExtendReply, error)
}

// ExtendReply is an extend script's answer.
type ExtendReply struct {
	// Held: the field still held the lock, and its lease was set.
	Held bool
	// Sync is the replica acknowledgement of the script's write.
	Sync core.SyncResult
}

// Extend sets the lease of h's lock to lease, counted from now: in Redis,
// with one script that sets it only while h's owner holds the lock, sent
// with replica sync as the acquire was; and in the hold's loss signal,
// which from then on fires before the new lease can have run out. The
// owner's holds of the lock share one lease: all of them are extended. A
// watchdog hold becomes a fixed-lease hold, for good, from the call on:
// renewal stops before anything is sent, even when Extend then fails.
//
// Errors: a lease below 1ms is refused (ErrInvalidArgument), a hold that
// ended returns why (ErrNotOwner after Unlock, ErrLockLost, ErrClosed), and
// a ctx done at the call returns its cause, with nothing sent or changed.
// When Redis answers that the owner holds the lock no more, the hold ends
// (ErrLockLost) and so does the call. Otherwise a failed Extend leaves the hold alive, as a fixed lease ending at the
// earlier of its end before the call and now + lease (nothing else is
// safe when the outcome is unknown): a write no replica acknowledged
// (ErrNoSyncedReplicas) ran on the master, but a failover may undo it; one
// that got no reply may still run, after anything sent since, so the hold
// never counts on more than that extend's end again. When ctx ends first
// the call returns its cause at once and the outcome is applied to the
// hold when it comes, as if the call had waited; the owner's next acquire
// or extend of the lock waits for it.
func (h *Hold) Extend(ctx context.Context, lease time.Duration) error {
	return h.extend(ctx, "extend", lease)
}

func (h *Hold) extend(ctx context.Context, op string, lease time.Duration) error {
	if h == nil || h.l == nil {
		return core.Errorf(core.ErrNotOwner, "%s: not an acquired hold (a nil or zero Hold)", op)
	}
	l := h.l
	if ctx == nil {
		return l.Err(op, core.ErrNilContext)
	}
	return l.Err(op, l.extend(ctx, h, lease))
}

func (l *Lock) extend(ctx context.Context, h *Hold, lease time.Duration) error {
	if lease < time.Millisecond {
		return fmt.Errorf("%w: the lease must be at least 1ms, got %v", core.ErrInvalidArgument, lease)
	}
	if err := l.extendable(h); err != nil {
		return err
	}
	if ctx.Err() != nil {
		return context.Cause(ctx) // nothing sent, nothing changed
	}
	field := h.OwnerField()
	done, err := l.extendSlot(ctx, field)
	if err != nil {
		return err
	}
	handed := false
	defer func() {
		if !handed {
			done()
		}
	}()
	if err := l.extendable(h); err != nil {
		return err // it ended while an earlier extend settled
	}
	busy, ok := l.rt.Holds().FixLease(&h.Hold)
	if !ok {
		return l.endOf(ctx, h)
	}
	if busy != nil {
		// A renewal sent before must not land after the extend and set
		// the watchdog's lease again.
		select {
		case <-busy:
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-l.rt.Closed():
			return core.ErrClosed
		}
	}
	start := time.Now()
	x, ok := l.rt.Holds().Extending(&h.Hold, start, lease)
	if !ok {
		return l.endOf(ctx, h)
	}
	r, p, err := inflight.Settle(l.rt.Inflight(), ctx, func(cctx context.Context) (ExtendReply, error) {
		return l.extendOnce(cctx, field, lease)
	})
	if p == nil {
		return l.extendDone(h, x, r, err)
	}
	// The caller stopped waiting: the outcome is applied when it comes,
	// and until then the owner's next acquire or extend waits for it.
	handed = true
	go func() {
		defer done()
		r, err, known := p.Wait(l.rt.Inflight().Drained())
		if !known {
			return // Close returned: the holds have ended
		}
		if err := l.extendDone(h, x, r, err); err != nil && !h.Releasing() {
			l.rt.Logger().Warn("redisson: an extend its caller stopped waiting for failed", "lock", l.cfg.Name, "err", err)
		}
	}()
	return err
}

// extendable returns why h cannot be extended, or nil.
func (l *Lock) extendable(h *Hold) error {
	if h.Releasing() {
		return core.Errorf(core.ErrNotOwner, "this hold was already released")
	}
	if err := h.Err(); err != nil {
		return err
	}
	if l.rt.Lifetime().Err() != nil {
		return core.ErrClosed
	}
	return nil
}

// endOf waits for h, whose lease the registry found ended, to be told, and
// returns why it ended.
func (l *Lock) endOf(ctx context.Context, h *Hold) error {
	select {
	case <-h.Done():
		return l.extendable(h)
	case <-ctx.Done():
		return context.Cause(ctx)
	case <-l.rt.Closed():
		return core.ErrClosed
	}
}

// extendSlot waits until no write of field whose outcome is unknown runs in
// the background (an extend whose caller left, an acquire's undo), then
// registers this extend as one: the owner's acquires and extends of the
// lock wait for it (awaitUndo), so that extends of one owner's lease run
// one at a time and in order. done ends the registration, once.
func (l *Lock) extendSlot(ctx context.Context, field string) (done func(), err error) {
	key := undoKey{l.queueKey, field}
	e := l.e
	for {
		e.undoMu.Lock()
		prev := e.undos[key]
		if prev == nil && l.cfg.Overlaps != nil {
			for k, d := range e.undos {
				if k.object == l.queueKey {
					prev = d
					break
				}
			}
		}
		if prev == nil {
			ch := make(chan struct{})
			if e.undos == nil {
				e.undos = make(map[undoKey]chan struct{})
			}
			e.undos[key] = ch
			e.undoMu.Unlock()
			return func() {
				e.undoMu.Lock()
				if e.undos[key] == ch {
					delete(e.undos, key)
				}
				e.undoMu.Unlock()
				close(ch)
			}, nil
		}
		e.undoMu.Unlock()
		select {
		case <-prev:
		case <-ctx.Done():
			return nil, context.Cause(ctx)
		case <-l.rt.Closed():
			return nil, core.ErrClosed
		}
	}
}

// extendOnce sends the object's extend script for field.
func (l *Lock) extendOnce(ctx context.Context, field string, lease time.Duration) (ExtendReply, error) {
	var (
		r   ExtendReply
		err error
	)
	if xs, ok := l.cfg.Scripts.(ExtendScripts); ok {
		r, err = xs.Extend(ctx, field, lease)
	} else {
		var res any
		res, r.Sync, err = l.rt.Run(ctx, expireScript, core.RunOpts{Synced: true, NoRetry: true}, []string{l.cfg.Name}, lease.Milliseconds(), field)
		r.Held = res == int64(1)
	}
	if err != nil {
		return ExtendReply{}, l.typed(ctx, err)
	}
	return r, nil
}

// extendDone records the outcome of extend x of h and returns the call's
// error.
func (l *Lock) extendDone(h *Hold, x *holds.Extension, r ExtendReply, err error) error {
	out := holds.ExtendApplied
	switch {
	case err != nil && isTransport(err) && !core.NotSent(err):
		// No reply: it may run yet, after anything sent since.
		out = holds.ExtendUnknown
	case err != nil:
		out = holds.ExtendNotApplied
	case !r.Held:
		why := "the owner holds the lock no more"
		l.rt.Holds().ExtendLost(x, l.lost("%s", why))
		return fmt.Errorf("%w: %s", core.ErrLockLost, why)
	case r.Sync.Failed() && l.rt.Sync().FailOnNoSync:
		// It ran on the master, but a failover may bring back the lease
		// it replaced: the hold keeps the earlier end.
		out = holds.ExtendNotApplied
		err = r.Sync.Err(l.rt.Sync().Timeout)
	}
	if !l.rt.Holds().ExtendSettled(x, out) {
		// The hold ended meanwhile (its lease ran out by our clock, the
		// client closed): that is the answer.
		<-h.Done()
		return l.extendable(h)
	}
	return err
}
