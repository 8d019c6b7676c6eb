package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/internal/localq"
	"github.com/goredisson/redisson/internal/replies"
)

// releaseAttempts is how often a release is sent when its reply is lost; the
// unlock latch makes the repeats return the first attempt's answer.
const releaseAttempts = 3

// LatchTTL is how long an unlock latch lives: every attempt of one release
// request. Redisson computes (timeout + retry delay) × attempts, 16–20 s by
// default; ours is as long as our own retries can take.
func LatchTTL(rt *core.Runtime) time.Duration {
	return max(time.Duration(releaseAttempts+1)*rt.Timeout(), minLatchTTL)
}

// minLatchTTL keeps a latch at least as long as Redisson's (13.5–20 s): an
// attempt stuck in the network may land that late, and must then find the
// latch and replay, not release a later hold of the same owner again.
const minLatchTTL = 20 * time.Second

// Unlock releases h: one hold of its owner. The owner's last hold frees the
// lock and wakes a waiter, or hands the lock straight to a waiter of this
// client. It does not need a live ctx: the release runs on its own context
// bounded by the client's timeout, keeping ctx's values. A hold released
// before, or one that ended (lost, client closed), sends nothing and
// returns why.
func (h *Hold) Unlock(ctx context.Context) error {
	if h == nil || h.l == nil {
		return core.Errorf(core.ErrNotOwner, "unlock: not an acquired hold (a nil or zero Hold)")
	}
	l := h.l
	if ctx == nil {
		// Refused before the hold is marked released: it stays the
		// caller's to release with a context.
		return l.Err("unlock", core.ErrNilContext)
	}
	octx, ob := l.rt.Events().StartRelease(ctx, l.cfg.Kind, l.cfg.Name)
	var res releaseResult
	err := l.Err("unlock", l.unlock(octx, h, &res))
	ob.End(err, res.full, res.handedOff)
	return err
}

// unlock releases h and sets *out to the release's result.
func (l *Lock) unlock(ctx context.Context, h *Hold, out *releaseResult) error {
	if !h.BeginRelease() {
		// A second release of one hold sends nothing: it could release a
		// later hold of the same owner.
		return core.Errorf(core.ErrNotOwner, "this hold was already released")
	}
	if err := h.Err(); err != nil {
		// Lost or closed: another hold of the same owner may exist by now,
		// and a release sent for this one would take it.
		return err
	}
	if l.rt.Lifetime().Err() != nil {
		return core.ErrClosed
	}
	field := h.OwnerField()
	lease := l.rt.Holds().LeaseOf(l.cfg.Name, field, l.rt.WatchdogTimeout())
	// Each attempt is bounded by the client's timeout (see release); the
	// latch outlives them all.
	dctx := context.WithoutCancel(ctx)
	var q *localq.Queue[*Hold]
	if l.cfg.HandOff {
		if ref, ok := l.e.queues.peek(l.queueKey); ok {
			defer ref.release()
			q = ref.value()
		}
	}
	if q != nil && l.cfg.PassOn && l.passOn(q, h, field) {
		*out = releaseResult{full: true, handedOff: true}
		return nil
	}
	res, err := l.release(dctx, q, field, lease)
	*out = res
	// A release that ran counts as one below, whatever its error says.
	ran := err == nil || errors.Is(err, core.ErrNoSyncedReplicas) || errors.Is(err, errUnheard)
	if !ran && q != nil {
		q.ReleaseDone(false)
	}
	if done, ferr := l.releaseFailed(h, field, err, ran); done {
		return ferr
	}
	if res.shared {
		l.rt.Holds().ReleasedShared(&h.Hold, res.start)
	} else {
		l.rt.Holds().Released(&h.Hold, res.full, res.start)
	}
	deferred := false
	if q != nil {
		deferred = q.ReleaseDone(res.full)
	}
	switch {
	case res.full && res.yielded:
		// A hand-off streak ended: the lock is free for everyone, and our
		// local waiters learn it from the same message as waiters
		// elsewhere, so that they get no head start (fairness across
		// processes). Only a waiter woken before the registry was current
		// is woken again.
		if deferred {
			l.wakeLocal()
		}
	case res.full && !res.handedOff:
		// A local waiter may have checked the lock, found it busy and gone
		// to sleep before the hold above was dropped, and it may have come
		// after the release message (or even after we looked for waiters to
		// hand over to). Wake the oldest one now that the registry is
		// current.
		l.wakeLocal()
	}
	// A shared release wakes nobody, even when it ended this owner's
	// holds: the lock is still held by others (a read lock's other
	// readers), so a local waiter of this object could only find it held
	// again. The release that frees it (the last reader's) publishes and
	// wakes them.
	return err
}

// releaseFailed settles h after a release that failed for good, and
// reports whether it did (then unlock returns the error it gives): a
// refusal leaves h its owner's again; Redis holding nothing for the owner,
// or a release whose outcome is unknown (!ran), ends h.
func (l *Lock) releaseFailed(h *Hold, field string, err error, ran bool) (bool, error) {
	switch {
	case errors.Is(err, core.ErrReleaseRefused):
		// Nothing ran: the hold is the caller's again, renewed as
		// before, and the same Unlock works once Redis accepts it.
		h.CancelRelease()
		return true, err
	case errors.Is(err, core.ErrNotOwner):
		// Redis says the owner holds nothing: the lease ran out (or the key
		// was deleted) before we could tell. The hold is over.
		l.rt.Holds().Abandon(l.cfg.Name, field, l.lost("%w", err))
		return true, err
	case !ran:
		// Whether the release ran is unknown: no reply, or an error the
		// script may have met after it wrote. Either way this hold's one
		// release is spent, so stop renewing and let the lock expire with
		// its lease if it is still there (Redisson cancels renewal whatever
		// the unlock's outcome). The hold ends, and a local waiter learns
		// it.
		l.rt.Holds().Abandon(l.cfg.Name, field, l.lost("the unlock failed: %w", err))
		l.wakeLocal()
		return true, err
	}
	return false, nil
}

// errUnheard marks a release that ran but whose message Redis refused
// (replies.ChannelDenied): the hold ended as released.
var errUnheard = errors.New("the release was not announced")

// refused is the error of a release Redis refused before it ran: the hold
// is still the caller's (core.ErrReleaseRefused), and the error says what Redis
// answered (ErrNoPermission for an ACL refusal).
func refused(err error) error {
	return core.Errorf(core.ErrReleaseRefused, "Redis refused the release, so the hold is still held; Unlock again once Redis accepts it: %w", core.Permission(err))
}

type releaseResult struct {
	full      bool // the owner's last hold was released
	shared    bool // one hold was released; the lock stays held (Shared)
	handedOff bool // ... and the lock went straight to a local waiter
	yielded   bool // ... or not, because a hand-off streak had reached its end
	start     time.Time
}

// release runs the release script for field, handing the lock to the oldest
// parked waiter of q when there is one and the streak allows. It returns
// ErrNotOwner when field does not hold the lock. With q, the caller ends the
// release with Queue.ReleaseDone once the registry knows its outcome.
func (l *Lock) release(ctx context.Context, q *localq.Queue[*Hold], field string, lease time.Duration) (releaseResult, error) {
	var next *localq.Waiter[*Hold]
	yielded := false
	if q != nil {
		next, yielded = q.BeginRelease(l.undoPending)
	}
	var succ *Successor
	if next != nil {
		succ = &Successor{Field: next.Field, Lease: next.Lease}
	}
	o := l.sendRelease(ctx, field, lease, succ, yielded)
	freed := o.res == Freed
	if q != nil {
		r := localq.Released[*Hold]{Next: next, Freed: freed, Start: o.start, Yielded: yielded, Heard: o.heard}
		if succ != nil {
			r.Value, r.NoValue = succ.Value, l.values != nil && succ.Value == 0
		}
		// The hand-off may have happened, as early as the first send.
		r.MaybeRan = o.err != nil && (isTransport(o.err) || replies.ChannelDenied(o.err))
		q.EndRelease(r, time.Now(), l.e.standBackFor)
	}
	if r, failed, ferr := releaseFailure(o.err, o.noReply, next != nil, o.start); failed {
		return r, ferr
	}
	if o.res == NotOwner {
		return releaseResult{}, fmt.Errorf("%w: Redis has no hold of owner %s", core.ErrNotOwner, field)
	}
	return releaseResult{full: freed, shared: o.res == Shared, handedOff: freed && next != nil, yielded: freed && yielded, start: o.start}, o.err
}

// sent is what the attempts of one release came to.
type sent struct {
	res   Released
	heard int
	err   error
	start time.Time // the first attempt's send
	// noReply: an attempt got no reply, so it may have run; a later
	// attempt's refusal then says nothing of the release.
	noReply bool
}

// sendRelease sends the release as one request (one latch) until it gets
// an answer, up to releaseAttempts times; heard: see releaseOnce.
func (l *Lock) sendRelease(ctx context.Context, field string, lease time.Duration, succ *Successor, heard bool) sent {
	reqID := l.rt.RequestID()
	var o sent
	for attempt := 1; ; attempt++ {
		if attempt == 1 {
			// A later attempt may replay the first one's outcome (latch):
			// the new holder's lease counts from the first send.
			o.start = time.Now()
		}
		// One attempt may take the client's timeout: a stalled one must
		// leave time for the next, which the latch makes safe to send.
		actx := l.rt.Conns().Within(ctx, l.rt.Timeout())
		o.res, o.heard, o.err = l.releaseOnce(actx, field, lease, reqID, succ, heard)
		err := o.err
		o.noReply = o.noReply || isTransport(err) && !core.NotSent(err)
		// A rejection (READONLY from a master demoted by a failover the
		// client has not followed yet, say) did not run: send it again.
		if err == nil || !isTransport(err) && !core.Rejected(err) || attempt == releaseAttempts || ctx.Err() != nil {
			return o
		}
		select {
		case <-time.After(time.Duration(attempt) * 50 * time.Millisecond):
		case <-ctx.Done():
		}
	}
}

// releaseFailure tells what a release that failed with err reports, and
// whether it failed at all (not for nil, or ErrNoSyncedReplicas: it ran):
// a refusal before the script ran (unless an earlier attempt got no reply)
// keeps the hold (core.ErrReleaseRefused); a PUBLISH refused after the
// script freed the lock is a release that happened (errUnheard), unless it
// was a hand-off (handing), whose outcome the waiter reads from Redis.
func releaseFailure(err error, noReply, handing bool, start time.Time) (releaseResult, bool, error) {
	switch {
	case err == nil || errors.Is(err, core.ErrNoSyncedReplicas):
		return releaseResult{}, false, nil
	case !noReply && replies.Refused(err):
		return releaseResult{}, true, refused(err)
	case replies.ChannelDenied(err) && !handing:
		// Waiters elsewhere learn of it at their next try (the holder's
		// TTL), not from a message.
		return releaseResult{full: true, start: start}, true,
			core.Errorf(errUnheard, "the lock was released, but its unlock message was refused: %w", core.Permission(err))
	}
	return releaseResult{}, true, core.Permission(err)
}

// releaseOnce sends the release once; heard asks for the number of
// connections the message reached, when the Scripts can tell (yielded: a
// streak ends).
func (l *Lock) releaseOnce(ctx context.Context, field string, lease time.Duration, reqID string, next *Successor, heard bool) (Released, int, error) {
	var (
		r   ReleaseReply
		err error
	)
	if hs, ok := l.cfg.Scripts.(HeardScripts); ok && heard && next == nil {
		r, err = hs.ReleaseHeard(ctx, field, lease, reqID)
	} else {
		r, err = l.cfg.Scripts.Release(ctx, field, lease, reqID, next)
	}
	if err != nil {
		return NotOwner, 0, l.typed(ctx, err)
	}
	if r.Released != NotOwner && r.Sync.Failed() && l.rt.Sync().FailOnNoSync {
		return r.Released, r.Heard, r.Sync.Err(l.rt.Sync().Timeout)
	}
	return r.Released, r.Heard, nil
}

// Lost ends every local hold of the lock after a force unlock.
func (l *Lock) Lost() {
	l.rt.Holds().Lost(l.cfg.Name, l.lost("force-unlocked"))
}

// lost is the cause a hold of this lock ends with when ownership is lost
// for the reason format gives: `<kind> "<name>": ownership lost: <why>`.
func (l *Lock) lost(format string, a ...any) error {
	return &core.ObjectError{Kind: l.cfg.Kind, Name: l.cfg.Name, Err: fmt.Errorf("%w: "+format, append([]any{core.ErrLockLost}, a...)...)}
}
