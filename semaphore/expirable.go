package semaphore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson/internal/conns"
	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/internal/events"
	"github.com/goredisson/redisson/internal/handle"
	"github.com/goredisson/redisson/internal/inflight"
	"github.com/goredisson/redisson/internal/replies"
	"github.com/goredisson/redisson/internal/retry"
	"github.com/goredisson/redisson/keys"
	"github.com/goredisson/redisson/observe"
	"github.com/goredisson/redisson/source"
)

// ErrUnknownPermit is returned by ExpirableSemaphore.Release for a permit id
// that is not held: never acquired, already released, or whose lease ended
// (Redisson's IllegalArgumentException "Permit with id … has already been
// released or doesn't exist"). It wraps ErrNotOwner.
var ErrUnknownPermit = core.Errorf(core.ErrNotOwner, "it was released, it expired or it never existed")

// ExpirableSemaphore is Redisson's RPermitExpirableSemaphore: a semaphore
// whose permits have ids and, optionally, leases. A permit whose lease ends
// comes back to the pool the next time any client (Go or Java) acquires,
// counts or updates a lease on the semaphore, so a crashed holder cannot
// leak it for good.
//
// The available permits are the string key <name> (shared with a Semaphore
// of the same name, as in Redisson); the held permits are the zset
// {name}:timeout, member = the id's 16 raw bytes, score = the lease's end in
// ms since the epoch on the acquiring client's clock (922337203685477
// without a lease). Clocks of the clients must agree to within the leases'
// precision. It is Redisson 3.23.4+'s layout (docs/protocol.md §9); ids are 32
// lowercase hex characters, as Java's.
//
// It is cheap, safe for concurrent use, and holds nothing but its name. Get
// one from NewExpirable or (*redisson.Client).PermitExpirableSemaphore.
type ExpirableSemaphore struct {
	s       *Semaphore // the name, channel, checks and error helpers
	timeout string
}

// NewExpirable returns the permit-expirable semaphore called name
// (Redisson's getPermitExpirableSemaphore) of src's client. A nil or zero
// src gives a handle whose every call fails with ErrInvalidArgument.
func NewExpirable(src *source.Source, name string) *ExpirableSemaphore {
	rt := (*handle.Source)(src).Runtime()
	return &ExpirableSemaphore{s: newSemaphore(rt, name), timeout: keys.ExpirableSemaphoreTimeout(name)}
}

// Name returns the semaphore's name, which is also its key; "" for a nil
// handle.
func (e *ExpirableSemaphore) Name() string {
	if e == nil {
		return ""
	}
	return e.s.Name()
}

func (e *ExpirableSemaphore) fail(op string, err error) error {
	if err == nil {
		return nil
	}
	var name string
	if e != nil {
		name = e.s.Name()
	}
	return &core.ObjectError{Kind: "permit-expirable semaphore", Name: name, Op: op, Err: err}
}

// checkHandle is Semaphore's checkHandle, nil handle included.
func (e *ExpirableSemaphore) checkHandle(ctx context.Context) error {
	if e == nil {
		return core.ErrNilHandle
	}
	return e.s.checkHandle(ctx)
}

// check is Semaphore's check, nil handle included.
func (e *ExpirableSemaphore) check(ctx context.Context) error {
	if e == nil {
		return core.ErrNilHandle
	}
	return e.s.check(ctx)
}

// TrySetPermits makes permits available if the semaphore does not exist and
// publishes the count, reporting true; it reports false and changes nothing
// if it exists.
func (e *ExpirableSemaphore) TrySetPermits(ctx context.Context, permits int) (bool, error) {
	if e == nil {
		return false, e.fail("try set permits", core.ErrNilHandle)
	}
	return e.s.TrySetPermits(ctx, permits)
}

// SetPermits makes the total, available plus held, permits: the available
// count moves by the difference (and may go below zero when more are held)
// and the total is published when it changed (Redisson 3.19.1+'s
// setPermits). Expired permits still in the zset count as held.
func (e *ExpirableSemaphore) SetPermits(ctx context.Context, permits int) error {
	const op = "set permits"
	if err := e.check(ctx); err != nil {
		return e.fail(op, err)
	}
	if err := checkPermits(permits, false); err != nil {
		return e.fail(op, err)
	}
	_, _, err := e.s.rt.Run(ctx, expSetScript, core.RunOpts{Synced: true}, []string{e.s.name, e.s.channel, e.timeout}, permits, e.s.rt.PublishCommand())
	return e.fail(op, e.s.explain(ctx, err))
}

// AddPermits adds delta available permits, or removes -delta (the count may
// go below zero), with a SET that clears any TTL, and publishes delta when
// it is positive, as Redisson's addPermits does. It is sent at most once: a
// retry after a lost reply could add twice, so the error then says the
// change may have been made. A total a Java int cannot hold is refused with
// ErrInvalidArgument, atomically, and nothing is changed.
func (e *ExpirableSemaphore) AddPermits(ctx context.Context, delta int) error {
	const op = "add permits"
	if err := e.check(ctx); err != nil {
		return e.fail(op, err)
	}
	if err := checkPermits(delta, true); err != nil {
		return e.fail(op, err)
	}
	_, _, err := e.s.rt.Run(ctx, expAddScript, core.RunOpts{Synced: true, NoRetry: true}, []string{e.s.name, e.s.channel}, delta, e.s.rt.PublishCommand())
	if rerr := outOfRangeError(err, delta); rerr != nil {
		return e.fail(op, rerr)
	}
	return e.fail(op, e.s.explain(ctx, err))
}

// AvailablePermits returns the permits available now, after returning
// expired ones to the pool (which publishes the new count).
func (e *ExpirableSemaphore) AvailablePermits(ctx context.Context) (int, error) {
	return e.count(ctx, "available permits", expAvailableScript)
}

// Permits returns the total permits, available plus held, after returning
// expired ones; 0 when the semaphore does not exist (Redisson's getPermits).
func (e *ExpirableSemaphore) Permits(ctx context.Context) (int, error) {
	return e.count(ctx, "permits", expPermitsScript)
}

// AcquiredPermits returns how many permits are held, after returning
// expired ones (Redisson's acquiredPermits).
func (e *ExpirableSemaphore) AcquiredPermits(ctx context.Context) (int, error) {
	return e.count(ctx, "acquired permits", expAcquiredScript)
}

func (e *ExpirableSemaphore) count(ctx context.Context, op string, s *core.Script) (int, error) {
	if err := e.check(ctx); err != nil {
		return 0, e.fail(op, err)
	}
	// Retries are harmless: a second reclaim finds nothing left to reclaim.
	res, _, err := e.s.rt.Run(ctx, s, core.RunOpts{Synced: true}, []string{e.s.name, e.timeout, e.s.channel}, nowMS(), e.s.rt.PublishCommand())
	if err != nil {
		return 0, e.fail(op, e.explain(ctx, err))
	}
	n, err := e.s.number(ctx, res)
	return n, e.fail(op, err)
}

// Delete deletes the semaphore's key and its zset of held permits, and
// reports whether any existed. Nothing is published, as in Redisson.
func (e *ExpirableSemaphore) Delete(ctx context.Context) (bool, error) {
	const op = "delete"
	if err := e.check(ctx); err != nil {
		return false, e.fail(op, err)
	}
	n, err := conns.Bounded(ctx, func(ctx context.Context) (int64, error) {
		return e.s.rt.Redis().Del(ctx, e.s.name, e.timeout).Result()
	})
	return n > 0, e.fail(op, err)
}

// Acquire takes one permit, waiting until one is available or ctx is done,
// and returns its id (Redisson's acquire([leaseTime])). WithLease gives it
// a lease. On error nothing is held.
func (e *ExpirableSemaphore) Acquire(ctx context.Context, opts ...ExpirableAcquireOption) (string, error) {
	ids, _, err := e.acquire(ctx, "acquire", 1, true, apply(opts, ExpirableAcquireOption.applyExpirableAcquire))
	if err != nil {
		return "", err
	}
	return ids[0], nil
}

// AcquireN takes permits permits at once, waiting until that many are
// available or ctx is done, and returns their ids (Redisson's
// acquire(permits[, leaseTime])). 0 permits returns no ids at once.
func (e *ExpirableSemaphore) AcquireN(ctx context.Context, permits int, opts ...ExpirableAcquireOption) ([]string, error) {
	ids, _, err := e.acquire(ctx, "acquire", permits, true, apply(opts, ExpirableAcquireOption.applyExpirableAcquire))
	return ids, err
}

// TryAcquire takes one permit if one is available now, or WithWait when one
// becomes available within the wait, and returns its id and true; running
// out of wait is "", false and a nil error (Redisson's tryAcquire returning
// null). WithLease gives the permit a lease.
func (e *ExpirableSemaphore) TryAcquire(ctx context.Context, opts ...ExpirableTryOption) (string, bool, error) {
	ids, ok, err := e.acquire(ctx, "try acquire", 1, false, apply(opts, ExpirableTryOption.applyExpirableTry))
	if err != nil || !ok {
		return "", false, err
	}
	return ids[0], true, nil
}

// TryAcquireN is TryAcquire for permits permits taken together.
func (e *ExpirableSemaphore) TryAcquireN(ctx context.Context, permits int, opts ...ExpirableTryOption) ([]string, bool, error) {
	return e.acquire(ctx, "try acquire", permits, false, apply(opts, ExpirableTryOption.applyExpirableTry))
}

// acquire is Redisson's wait (§9.5): try; if the permits are not there,
// subscribe, try again, then sleep until a message, the end of the earliest
// lease the script reported (when that permit comes back), the wait budget
// or ctx, and try again.
func (e *ExpirableSemaphore) acquire(ctx context.Context, op string, n int, forever bool, o acquireOptions) ([]string, bool, error) {
	const kind = "permit-expirable semaphore"
	if err := e.checkHandle(ctx); err != nil {
		return nil, false, e.fail(op, err)
	}
	waits := forever || o.wait > 0
	octx, ob := e.s.rt.Events().StartAcquire(ctx, kind, e.s.name, waits, int64(n))
	ids, ok, err := e.acquireObserved(octx, op, n, forever, o, &ob)
	if ok && len(ids) > 0 {
		e.s.rt.Permits().Took(e.s.name, len(ids), ids) // for the registration record
	}
	if ob.On() {
		ob.End(ctx, ok, err, waits)
		if ok && n > 0 {
			e.s.rt.Events().Permits(octx, kind, e.s.name, observe.PermitsTaken, int64(n))
		}
	}
	return ids, ok, err
}

func (e *ExpirableSemaphore) acquireObserved(ctx context.Context, op string, n int, forever bool, o acquireOptions, ob *events.Acq) ([]string, bool, error) {
	if err := e.check(ctx); err != nil {
		return nil, false, e.fail(op, err)
	}
	if err := checkPermits(n, false); err != nil {
		return nil, false, e.fail(op, err)
	}
	switch {
	case o.hasWait && o.wait < 0:
		return nil, false, e.fail(op, fmt.Errorf("%w: the wait must not be negative, got %v", core.ErrInvalidArgument, o.wait))
	case o.hasLease && o.lease < time.Millisecond:
		return nil, false, e.fail(op, fmt.Errorf("%w: the lease must be at least 1ms, got %v", core.ErrInvalidArgument, o.lease))
	}
	if n == 0 {
		return []string{}, true, nil
	}
	wait := forever || o.wait > 0
	var deadline time.Time
	if !forever && o.wait > 0 {
		deadline = time.Now().Add(o.wait)
	}
	if !wait {
		ids, _, err := e.tryAcquire(ctx, n, o)
		ob.Try(ids != nil, err)
		return ids, ids != nil, e.fail(op, err)
	}
	// Nobody publishes when a lease ends: the attempt's next time (the
	// earliest lease's end) bounds the sleep.
	var ids []string
	ok, err := e.s.rt.Retry().Wait(ctx, retry.WaitSpec{Channel: e.s.channel, Policy: wakePolicy, Deadline: deadline,
		Kind: "permit-expirable semaphore", Name: e.s.name, Observe: ob},
		func(ctx context.Context) (bool, time.Time, error) {
			got, next, err := e.tryAcquire(ctx, n, o)
			ids = got
			return got != nil, next, err
		})
	if !ok {
		return nil, false, e.fail(op, err)
	}
	return ids, true, nil
}

// tryAcquire runs the acquire script once under fresh ids. It returns the
// ids when taken, or the time the earliest lease ends (zero: none will).
//
// As Semaphore's, it is sent at most once and on a context ctx cannot
// cancel; when ctx ends first the reply is awaited in the background and
// permits it took are released by id at once. The exchange and its
// give-backs are registered with the runtime, so that Client.Close waits
// for them.
func (e *ExpirableSemaphore) tryAcquire(ctx context.Context, n int, o acquireOptions) ([]string, time.Time, error) {
	type reply struct {
		ids  []string
		next time.Time
		err  error
	}
	w, err := e.s.rt.Inflight().Begin()
	if err != nil {
		return nil, time.Time{}, err
	}
	if ctx.Done() == nil {
		defer w.End()
		return e.acquireOnce(ctx, w, n, o)
	}
	ch := make(chan reply, 1)
	go func() {
		ids, next, err := e.acquireOnce(context.WithoutCancel(ctx), w, n, o)
		ch <- reply{ids, next, err}
	}()
	var cause error
	select {
	case r := <-ch:
		w.End()
		return r.ids, r.next, r.err
	case <-ctx.Done():
		cause = context.Cause(ctx)
	case <-e.s.rt.Closed():
		cause = core.ErrClosed
	}
	select {
	case r := <-ch:
		w.End()
		return r.ids, r.next, r.err
	default:
	}
	go func() {
		defer w.End()
		if r := <-ch; r.ids != nil {
			e.giveBack(ctx, r.ids, "an acquire whose caller had left")
		}
	}()
	return nil, time.Time{}, cause
}

// acquireOnce runs the acquire script on ctx.
//
// Unlike Semaphore's, a lost reply can be settled: the ids are ours, so
// Redis tells whether the script ran (ZSCORE of the first id). If it did,
// the caller has the permits. If it had not, it may still run later (it
// can be queued behind a slow command), so a late check gives back what it
// takes. When the question gets no answer either, the caller is told the
// acquire failed, and the question is asked again in the background until
// Redis answers (settleUnknown): a permit without a lease would otherwise
// be missing for good if the acquire ran once the network came back.
//
// w is the acquire's registration with the runtime; a late check outlives it
// on a fork of it.
func (e *ExpirableSemaphore) acquireOnce(ctx context.Context, w *inflight.Work, n int, o acquireOptions) ([]string, time.Time, error) {
	ids := make([]string, n)
	args := make([]any, 0, 5+n)
	now := nowMS()
	expiry := noLease
	if o.hasLease {
		expiry = strconv.FormatInt(now+o.lease.Milliseconds(), 10)
	}
	args = append(args, n, expiry, now, noLease, e.s.rt.PublishCommand())
	for i := range ids {
		var b [16]byte
		_, _ = rand.Read(b[:])
		ids[i] = hex.EncodeToString(b[:])
		args = append(args, string(b[:]))
	}
	keys := []string{e.s.name, e.timeout, e.s.channel}
	res, sync, err := e.s.rt.Run(ctx, expAcquireScript, core.RunOpts{Synced: true, NoRetry: true}, keys, args...)
	if core.NotSent(err) {
		return nil, time.Time{}, err // it never reached Redis: nothing taken
	}
	if err != nil && !isReply(err) {
		ran, cerr := e.held(ctx, ids[0])
		switch {
		case cerr != nil:
			// Redis does not answer: the acquire may still be in the
			// network and run once it does. Keep asking.
			e.s.rt.Logger().Warn("redisson: an acquire got no reply and whether it ran is not known yet; asking until Redis answers",
				"semaphore", e.s.name, "permits", n, "err", err)
			go e.settleUnknown(w.Fork(), ids)
			return nil, time.Time{}, fmt.Errorf("no reply to the acquire of %d permits, and whether it ran is not known yet (if it did, its permits are given back once Redis answers): %w", n, err)
		case ran:
			res, err = "OK", nil
		default:
			// Not run yet; it may still be on its way (queued behind a slow
			// command, or in the network) and run later for nobody.
			go e.lateCheck(w.Fork(), ids)
			return nil, time.Time{}, fmt.Errorf("no reply to the acquire of %d permits; it had not run (if it runs late, its permits are given back): %w", n, err)
		}
	}
	if err != nil {
		return nil, time.Time{}, e.explain(ctx, err)
	}
	s, _ := res.(string)
	switch {
	case s == "OK":
	case strings.HasPrefix(s, ":"):
		ms, perr := strconv.ParseFloat(s[1:], 64)
		if perr != nil {
			return nil, time.Time{}, fmt.Errorf("unexpected reply %q", s)
		}
		return nil, time.UnixMilli(int64(ms)), nil
	case res == nil:
		return nil, time.Time{}, nil
	default:
		return nil, time.Time{}, fmt.Errorf("unexpected reply %T %v", res, res)
	}
	if sync.Failed() && e.s.rt.Sync().FailOnNoSync {
		e.giveBack(ctx, ids, "an acquire no replica acknowledged")
		return nil, time.Time{}, sync.Err(e.s.rt.Sync().Timeout)
	}
	if e.s.rt.Lifetime().Err() != nil {
		e.giveBack(ctx, ids, "an acquire that completed while the client closed")
		return nil, time.Time{}, core.ErrClosed
	}
	return ids, time.Time{}, nil
}

// lateCheck gives back the permits of an acquire that had not run when its
// reply was lost, should it run late: once the client's Timeout has passed
// it cannot still be on its way in any but a broken network. Close waits
// for it (w), up to its bound.
func (e *ExpirableSemaphore) lateCheck(w *inflight.Work, ids []string) {
	defer w.End()
	t := time.NewTimer(e.s.rt.Timeout())
	defer t.Stop()
	select {
	case <-t.C:
	case <-e.s.rt.Inflight().Drained().Done():
		e.s.rt.Logger().Warn("redisson: the client closed before a lost acquire could be checked; if it ran late, its permits are taken (a leased permit comes back when its lease ends)",
			"semaphore", e.s.name, "permits", len(ids))
		return
	}
	if ran, err := e.held(context.Background(), ids[0]); err == nil && ran {
		e.giveBack(context.Background(), ids, "an acquire that ran after its reply was lost")
	}
}

// settleUnknown settles an acquire whose reply and whose check were both
// lost: the caller was told it failed, so what it took is given back. It
// asks whether the acquire ran, again and again with a growing pause (the
// network, or Redis, may be down for long), until Redis answers; an answer
// "not yet" is followed by lateCheck's wait and second look. Once Close
// has begun it asks one last time, so that an outage does not hold Close
// for its whole bound, and warns if that gets no answer either.
func (e *ExpirableSemaphore) settleUnknown(w *inflight.Work, ids []string) {
	defer w.End()
	pause := unknownFirstPause
	t := time.NewTimer(pause)
	defer t.Stop()
	for {
		last := false
		select {
		case <-t.C:
		case <-e.s.rt.Closed():
			last = true
		}
		ran, err := e.held(context.Background(), ids[0])
		switch {
		case err == nil && ran:
			e.giveBack(context.Background(), ids, "an acquire that ran after its reply was lost")
			return
		case err == nil:
			e.lateCheck(w, ids) // it ends w (End is idempotent)
			return
		case last:
			e.s.rt.Logger().Warn("redisson: the client closed before Redis answered whether a lost acquire ran; if it did, its permits are taken (a leased permit comes back when its lease ends)",
				"semaphore", e.s.name, "permits", len(ids), "err", err)
			return
		}
		pause = min(2*pause, unknownMaxPause)
		t.Reset(pause)
	}
}

// The pauses between settleUnknown's questions: the first is short, as a
// connection that broke is usually replaced at once; the longest keeps a
// long outage down to a question a second per lost acquire.
const (
	unknownFirstPause = 50 * time.Millisecond
	unknownMaxPause   = time.Second
)

// held reports whether the permit id is in the zset, on a context of its
// own. It asks nothing once Client.Close has returned.
func (e *ExpirableSemaphore) held(ctx context.Context, id string) (bool, error) {
	dctx, cancel := e.s.rt.Inflight().ForUndo(ctx)
	defer cancel()
	return e.heldOn(dctx, id)
}

// heldOn is held on dctx, a context from Undoing.
func (e *ExpirableSemaphore) heldOn(dctx context.Context, id string) (bool, error) {
	if e.s.rt.Inflight().Drained().Err() != nil {
		return false, core.ErrClosed
	}
	raw, err := hex.DecodeString(id)
	if err != nil {
		return false, err
	}
	_, err = conns.Bounded(dctx, func(ctx context.Context) (float64, error) {
		return e.s.rt.Redis().ZScore(ctx, e.timeout, string(raw)).Result()
	})
	if err != nil {
		if isNil(err) {
			return false, nil
		}
		return false, err
	}
	return true, nil
}

// giveBack releases permits taken for a caller who will not have them,
// logging when that fails (a leased permit then comes back at its end, one
// without a lease is missing until SetPermits). A give-back Redis refuses is
// sent again until it accepts (core.Runtime.GiveBack). It sends nothing once
// Client.Close has returned: Close waits for give-backs, up to its bound.
func (e *ExpirableSemaphore) giveBack(ctx context.Context, ids []string, what string) {
	for _, id := range ids {
		failed := func(err error) {
			e.s.rt.Logger().Warn("redisson: giving back a permit of "+what+" failed",
				"semaphore", e.s.name, "permit", id, "err", err)
		}
		err, pending := e.s.rt.Inflight().GiveBack(ctx, func(dctx context.Context) error {
			_, err := e.releaseOn(dctx, id)
			return err
		}, func(err error) {
			if err != nil {
				failed(err)
			}
		})
		switch {
		case pending:
			e.s.rt.Logger().Warn("redisson: Redis refused giving back a permit of "+what+"; trying again until it accepts",
				"semaphore", e.s.name, "permit", id, "err", err)
		case err != nil:
			failed(err)
		}
	}
}

// Release gives the permit id back and publishes the new count. An id that
// is not held (unknown, released, or whose lease ended) is an error wrapping
// ErrUnknownPermit. Like Semaphore.Release it runs even when ctx is done or
// the client is closed.
func (e *ExpirableSemaphore) Release(ctx context.Context, id string) error {
	ok, err := e.TryRelease(ctx, id)
	if err == nil && !ok {
		err = e.fail("release", fmt.Errorf("permit %s: %w", id, ErrUnknownPermit))
	}
	return err
}

// TryRelease gives the permit id back and reports whether it was held. A
// permit whose lease ended but that nobody had reclaimed yet goes back to
// the pool too, and the answer is false, as in Redisson.
//
// A release Redis refused before running it (OOM, NOPERM, READONLY, ...)
// leaves the permit held: its error matches ErrReleaseRefused and says so,
// and releasing it again is safe. One whose script ran but whose message to the waiters Redis refused
// gave the permit back, as its error says.
func (e *ExpirableSemaphore) TryRelease(ctx context.Context, id string) (bool, error) {
	const op = "release"
	if err := e.checkHandle(ctx); err != nil {
		return false, e.fail(op, err)
	}
	ok, err := e.release(ctx, id)
	return ok, e.fail(op, err)
}

func (e *ExpirableSemaphore) release(ctx context.Context, id string) (bool, error) {
	dctx, cancel := e.s.rt.ForRelease(ctx)
	defer cancel()
	ok, err := e.releaseOn(dctx, id)
	if err == nil {
		e.s.rt.Permits().Gave(e.s.name, 1, id) // released, or not held any more
	}
	if ok && err == nil {
		e.s.rt.Events().Permits(ctx, "permit-expirable semaphore", e.s.name, observe.PermitsReleased, 1)
	}
	return ok, err
}

// releaseOn is release on dctx, a context bounded by the client's timeout.
func (e *ExpirableSemaphore) releaseOn(dctx context.Context, id string) (bool, error) {
	raw, err := decodeID(id)
	if err != nil {
		return false, err
	}
	// Sent with retries, as Redisson does: a second run finds the id gone
	// and changes nothing, so no permit is created; it then answers false
	// for a release that happened, which the error below cannot tell apart.
	res, _, err := e.s.rt.Run(dctx, expReleaseScript, core.RunOpts{Synced: true}, []string{e.s.name, e.s.channel, e.timeout},
		raw, 1, nowMS(), e.s.rt.PublishCommand())
	switch {
	case err == nil:
		return res == int64(1), nil
	case replies.Refused(err):
		return false, core.Errorf(core.ErrReleaseRefused, "Redis refused the release of permit %x before running it, so it is still held; releasing it again is safe once Redis accepts: %w", raw, core.Permission(err))
	case replies.ChannelDenied(err):
		return false, fmt.Errorf("permit %x was given back, but Redis refused the message on %s that wakes waiters: %w", raw, e.s.channel, core.Permission(err))
	}
	return false, e.explain(dctx, core.Permission(err))
}

// UpdateLeaseTime gives the held permit id a new lease, counted from now,
// and reports whether it was held (Redisson's updateLeaseTime). lease must
// be at least 1ms.
func (e *ExpirableSemaphore) UpdateLeaseTime(ctx context.Context, id string, lease time.Duration) (bool, error) {
	const op = "update lease time"
	if err := e.check(ctx); err != nil {
		return false, e.fail(op, err)
	}
	if lease < time.Millisecond {
		return false, e.fail(op, fmt.Errorf("%w: the lease must be at least 1ms, got %v", core.ErrInvalidArgument, lease))
	}
	raw, err := decodeID(id)
	if err != nil {
		return false, e.fail(op, err)
	}
	now := nowMS()
	res, _, err := e.s.rt.Run(ctx, expUpdateLeaseScript, core.RunOpts{Synced: true}, []string{e.s.name, e.timeout, e.s.channel},
		raw, now+lease.Milliseconds(), now, e.s.rt.PublishCommand())
	if err != nil {
		return false, e.fail(op, e.explain(ctx, err))
	}
	return res == int64(1), nil
}

// LeaseTime returns how long the held permit id has left, or -1 when it has
// no lease (Redisson 3.41+'s getLeaseTime). A permit not held is an error
// wrapping ErrUnknownPermit.
func (e *ExpirableSemaphore) LeaseTime(ctx context.Context, id string) (time.Duration, error) {
	const op = "lease time"
	if err := e.check(ctx); err != nil {
		return 0, e.fail(op, err)
	}
	raw, err := decodeID(id)
	if err != nil {
		return 0, e.fail(op, err)
	}
	res, _, err := e.s.rt.Run(ctx, expLeaseScript, core.RunOpts{Synced: true}, []string{e.s.name, e.timeout, e.s.channel},
		raw, noLease, nowMS(), e.s.rt.PublishCommand())
	if err != nil {
		return 0, e.fail(op, e.explain(ctx, err))
	}
	ms, _ := res.(int64)
	switch ms {
	case -2:
		return 0, e.fail(op, fmt.Errorf("permit %s: %w", id, ErrUnknownPermit))
	case -1:
		return -1, nil
	}
	return time.Duration(ms) * time.Millisecond, nil
}

// explain is Semaphore's, also naming the zset when it holds another type.
func (e *ExpirableSemaphore) explain(ctx context.Context, err error) error {
	if errors.Is(err, core.ErrWrongType) {
		typ, terr := conns.Bounded(ctx, func(ctx context.Context) (string, error) {
			return e.s.rt.Redis().Type(ctx, e.timeout).Result()
		})
		if terr == nil && typ != "zset" && typ != "none" {
			return core.WrongTypeError(ctx, e.s.rt.Redis(), e.timeout, "zset")
		}
	}
	return e.s.explain(ctx, err)
}

// decodeID turns a permit id into the 16 bytes stored in the zset.
func decodeID(id string) (string, error) {
	b, err := hex.DecodeString(id)
	if err != nil || len(b) != 16 {
		return "", fmt.Errorf("%w: a permit id is 32 hex characters, got %q", core.ErrInvalidArgument, id)
	}
	return string(b), nil
}

// nowMS is the clock leases are measured on: ms since the epoch, as Java's
// System.currentTimeMillis, which Java peers compare with the same scores.
func nowMS() int64 { return time.Now().UnixMilli() }

// isNil reports go-redis' "no such value" reply.
func isNil(err error) bool { return errors.Is(err, redis.Nil) }
