// Package rlock is Redisson's RLock: a reentrant distributed lock that Go and
// Java services can share.
//
// The lock is the hash <name> with one field "<client id>:<owner id>" whose
// value is the hold count; its TTL is the lease. Lock without a lease starts
// the watchdog, which renews the lease every WatchdogTimeout/3 while the lock
// is held. Waiters sleep on the pub/sub channel redisson_lock__channel:{name}
// and are woken by the unlock message "0", never by polling; the holder's TTL
// bounds every sleep in case a message is lost.
//
// Ownership travels in the context: Lock returns a context carrying the
// owner; pass it to Unlock, and to a nested Lock to re-enter. That context is
// done when the hold ends, with cause ErrLockLost when ownership was lost
// (the key vanished or the lease ran out before it could be renewed).
package rlock

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/internal/renewal"
	"github.com/goredisson/redisson/pubsub"
)

// Lock is a handle on one named lock. It is cheap and safe for concurrent
// use: who holds the lock is decided by the owner in the context, not by the
// handle.
type Lock struct {
	rt      *core.Runtime
	name    string
	channel string
	err     error

	// Derived once per handle: the lock path builds no strings and boxes
	// no constants.
	queueKey    string
	latchPrefix string
	renew       renewal.Kind
	onEnd       func(cause error)
}

// New returns the lock called name on rt. An empty name gives a handle whose
// every call fails with ErrInvalidName.
func New(rt *core.Runtime, name string) *Lock {
	l := &Lock{
		rt:          rt,
		name:        name,
		channel:     ChannelName(name),
		err:         core.ValidateName(name),
		queueKey:    "rlock:" + name,
		latchPrefix: LatchPrefix(name) + ":",
		renew:       renewKind{rt},
	}
	l.onEnd = l.holdEnded
	return l
}

// ChannelName returns the pub/sub channel of the lock called name.
func ChannelName(name string) string {
	return core.PrefixName("redisson_lock__channel", name)
}

// LatchPrefix returns the prefix of the lock's unlock-latch keys; each unlock
// request adds ":" and 32 hex characters.
func LatchPrefix(name string) string {
	return core.PrefixName("redisson_unlock_latch", name)
}

// Name returns the lock's name (its Redis key).
func (l *Lock) Name() string { return l.name }

// Option changes one acquisition.
type Option func(*acquireOptions)

type acquireOptions struct {
	lease    time.Duration
	wait     time.Duration
	hasLease bool
	hasWait  bool
}

// WithLease holds the lock for a fixed lease, without watchdog: it expires
// lease after the acquire unless unlocked before. lease must be positive.
func WithLease(lease time.Duration) Option {
	return func(o *acquireOptions) { o.lease, o.hasLease = lease, true }
}

// WithWait bounds how long TryLock waits for the lock: 0 tries once (the
// default), a positive wait keeps trying until it runs out.
func WithWait(wait time.Duration) Option {
	return func(o *acquireOptions) { o.wait, o.hasWait = wait, true }
}

func (l *Lock) options(opts []Option) (acquireOptions, error) {
	var o acquireOptions
	for _, opt := range opts {
		opt(&o)
	}
	if o.hasLease && o.lease <= 0 {
		return o, fmt.Errorf("%w: lease must be positive, got %v", core.ErrInvalidArgument, o.lease)
	}
	if o.hasLease && o.lease < time.Millisecond {
		return o, fmt.Errorf("%w: lease must be at least 1ms, got %v", core.ErrInvalidArgument, o.lease)
	}
	if o.hasWait && o.wait < 0 {
		return o, fmt.Errorf("%w: wait must not be negative, got %v", core.ErrInvalidArgument, o.wait)
	}
	return o, nil
}

// Lock waits until the lock is acquired or ctx is done. Without WithLease the
// watchdog keeps the lock until Unlock; WithWait is ignored (ctx bounds the
// wait). It returns a context that carries the owner: pass it to Unlock.
// That context derives from ctx and is done when the hold ends (Unlock, or
// ownership lost: cause ErrLockLost) or when ctx is done; ctx being done
// does not release the lock.
func (l *Lock) Lock(ctx context.Context, opts ...Option) (context.Context, error) {
	o, err := l.options(opts)
	if err != nil {
		return ctx, err
	}
	o.hasWait = false
	hctx, ok, err := l.acquire(ctx, o, true)
	if err == nil && !ok {
		err = context.Cause(ctx)
	}
	return hctx, err
}

// TryLock tries to acquire the lock once, or, WithWait, until the wait runs
// out. It reports false (and no error) when the lock was not acquired in
// time; the returned context then carries the owner but no hold.
func (l *Lock) TryLock(ctx context.Context, opts ...Option) (context.Context, bool, error) {
	o, err := l.options(opts)
	if err != nil {
		return ctx, false, err
	}
	return l.acquire(ctx, o, o.wait > 0)
}

func (l *Lock) check(ctx context.Context) error {
	if l.err != nil {
		return l.err
	}
	return l.rt.Check(ctx)
}

// acquire runs the acquire protocol: try; if held, park in the client's
// local queue and subscribe to the channel, try again (the holder may have
// left between the two), then sleep until a wake-up, a hand-off, the
// holder's TTL, the wait budget or ctx, and try again. While another owner
// of this client holds the lock no attempt is sent: its unlock hands the
// lock over or publishes.
func (l *Lock) acquire(ctx context.Context, o acquireOptions, wait bool) (context.Context, bool, error) {
	if err := l.check(ctx); err != nil {
		return ctx, false, err
	}
	ctx, owner := core.EnsureOwner(ctx)
	field := core.OwnerField(l.rt.ID, owner)
	lease, kind := l.rt.WatchdogTimeout, l.renew
	if o.hasLease {
		lease, kind = o.lease, nil
	}
	var deadline time.Time
	if wait && o.hasWait {
		deadline = time.Now().Add(o.wait)
	}
	// The first try needs no queue unless waiters exist: a lock taken
	// at once allocates no local state.
	busy := l.rt.HeldByOther(l.name, field)
	if ref, ok := l.rt.Peek(l.queueKey); ok {
		q := ref.Value().(*queue)
		q.mu.Lock()
		busy = busy || q.pending > 0
		q.mu.Unlock()
		ref.Release()
	}
	if !busy {
		start := time.Now()
		_, ok, err := l.tryAcquire(ctx, field, lease)
		if err != nil {
			return ctx, false, err
		}
		if ok {
			return l.acquired(ctx, l.held(ctx, field, kind, lease, start))
		}
	}
	if !wait {
		return ctx, false, nil
	}

	ref := l.rt.Local(l.queueKey, newQueue)
	defer ref.Release()
	q := ref.Value().(*queue)
	w := &waiter{field: field, lease: lease, kind: kind, state: parked, nudge: make(chan struct{}, 1)}
	q.mu.Lock()
	q.add(w)
	q.mu.Unlock()

	subCtx, cancel := ctx, context.CancelFunc(func() {})
	if !deadline.IsZero() {
		subCtx, cancel = context.WithDeadline(ctx, deadline)
	}
	sub, err := l.rt.Hub.Subscribe(subCtx, l.channel, pubsub.LockPolicy)
	cancel()
	if err != nil {
		switch {
		case errors.Is(err, pubsub.ErrClosed):
			err = core.ErrClosed
		case ctx.Err() != nil:
			err = context.Cause(ctx)
		case !deadline.IsZero() && !time.Now().Before(deadline):
			err = nil
		}
		return l.abandon(ctx, q, w, err)
	}
	acquired := false
	defer func() { sub.Close(acquired) }()
	// An unlock message while a goroutine of this client holds the lock or
	// is being handed it (typically the message of our own hand-off) cannot
	// be for any local waiter: that holder's unlock hands over or wakes the
	// oldest. Don't get woken for it; the queue's waiters share the answer.
	sub.PassOverWhen(q, func() bool {
		q.mu.Lock()
		defer q.mu.Unlock()
		return q.pending > 0 || l.rt.HeldLocally(l.name)
	})

	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		q.mu.Lock()
		state := w.state
		attempt := state == parked && !l.busy(q, field)
		if attempt {
			w.state = trying
		}
		q.mu.Unlock()

		sleep := l.rt.WatchdogTimeout
		switch {
		case state == handed:
			acquired = true
			return l.acquired(ctx, l.take(ctx, q, w))
		case state == unknown:
			if l.resolveUnknown(ctx, q, w) {
				acquired = true
				return l.acquired(ctx, l.take(ctx, q, w))
			}
			continue
		case attempt:
			start := time.Now()
			ttl, ok, err := l.tryAcquire(ctx, field, lease)
			q.mu.Lock()
			if ok || err != nil {
				q.remove(w)
			} else {
				w.state = parked
			}
			q.mu.Unlock()
			if err != nil {
				return ctx, false, err
			}
			if ok {
				acquired = true
				return l.acquired(ctx, l.held(ctx, field, kind, lease, start))
			}
			sleep = l.sleepFor(ttl)
		}
		if !deadline.IsZero() {
			left := time.Until(deadline)
			if left <= 0 {
				return l.abandon(ctx, q, w, nil)
			}
			sleep = min(sleep, left)
		}
		timer.Reset(sleep)
		select {
		case <-sub.C():
		case <-w.nudge:
		case <-timer.C:
		case <-ctx.Done():
			return l.abandon(ctx, q, w, context.Cause(ctx))
		case <-l.rt.Done().Done():
			return l.abandon(ctx, q, w, core.ErrClosed)
		}
	}
}

// busy reports whether another owner of this client holds the lock or is
// being handed it; called with q.mu held.
func (l *Lock) busy(q *queue, field string) bool {
	return q.pending > 0 || l.rt.HeldByOther(l.name, field)
}

// take registers a lock handed to w and leaves the queue.
func (l *Lock) take(ctx context.Context, q *queue, w *waiter) context.Context {
	hctx := l.held(ctx, w.field, w.kind, w.lease, w.start)
	q.mu.Lock()
	q.pending--
	q.remove(w)
	q.mu.Unlock()
	return hctx
}

// resolveUnknown reads from Redis whether a hand-off whose reply was lost
// made w the holder.
func (l *Lock) resolveUnknown(ctx context.Context, q *queue, w *waiter) bool {
	for attempt := 1; ; attempt++ {
		dctx, cancel := l.rt.Detached(ctx)
		start := time.Now()
		count, err := l.holdCount(dctx, w.field)
		held := count > 0
		cancel()
		if err == nil {
			q.mu.Lock()
			defer q.mu.Unlock()
			if held {
				// The hand-off happened, at most one unlock timeout ago.
				w.state, w.start = handed, start.Add(-unlockAttempts*l.rt.Timeout)
				return true
			}
			q.pending--
			w.state = parked
			w.wake()
			return false
		}
		// Never fall back to an acquire here: if the hand-off happened, it
		// would count a second hold.
		l.rt.Logger.Warn("redisson: checking a hand-off failed; retrying", "lock", l.name, "err", err)
		select {
		case <-time.After(min(time.Duration(attempt)*50*time.Millisecond, time.Second)):
		case <-l.rt.Done().Done():
			return false
		}
	}
}

// holdCount reads field's hold count on the master (0: none): a script, so
// that the read never goes to a replica.
func (l *Lock) holdCount(ctx context.Context, field string) (int, error) {
	res, err := l.rt.Eval(ctx, holdCountScript, []string{l.name}, field)
	if err != nil || res == nil {
		return 0, err
	}
	v, _ := res.(string)
	return l.parseCount(v)
}

func (l *Lock) parseCount(v string) (int, error) {
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, fmt.Errorf("rlock.holdCount: %q holds %q, not a count: %w", l.name, v, core.ErrWrongType)
	}
	return n, nil
}

// abandon takes w out of the queue when its caller gives up. A hand-off in
// flight is waited for (it is bounded by the client's timeout); a lock
// handed over meanwhile is released again, passing it on. It returns
// (ctx, false, err).
func (l *Lock) abandon(ctx context.Context, q *queue, w *waiter, err error) (context.Context, bool, error) {
	q.mu.Lock()
	for w.state == handing {
		q.mu.Unlock()
		<-w.nudge
		q.mu.Lock()
	}
	state := w.state
	q.remove(w)
	q.mu.Unlock()
	if state == handed || state == unknown {
		dctx, cancel := l.rt.Detached(ctx)
		defer cancel()
		if _, uerr := l.release(dctx, q, w.field, w.lease); uerr != nil && !errors.Is(uerr, core.ErrNotOwner) {
			l.rt.Logger.Warn("redisson: giving back a lock handed to a waiter that left failed; it will expire",
				"lock", l.name, "err", uerr)
		}
		q.mu.Lock()
		q.pending--
		q.mu.Unlock()
		// The release above may have published while the hand-off still
		// counted as pending, so that local waiters were passed over: wake
		// the oldest now that the lock is not busy here any more.
		l.wakeLocal()
	}
	return ctx, false, err
}

// sleepFor turns the holder's PTTL into how long to sleep: until it would
// expire, or for a lock without TTL (which Redisson waiters wait on for a
// message only) a watchdog period, so that a lost message cannot make a
// waiter sleep forever.
func (l *Lock) sleepFor(ttl time.Duration) time.Duration {
	if ttl < 0 {
		return l.rt.WatchdogTimeout
	}
	return max(ttl, time.Millisecond)
}

// tryAcquire runs the acquire script once: ok, or the holder's TTL.
func (l *Lock) tryAcquire(ctx context.Context, field string, lease time.Duration) (time.Duration, bool, error) {
	res, sync, err := l.rt.EvalSyncedNoRetry(ctx, acquireScript, []string{l.name}, lease.Milliseconds(), field)
	var stale *core.StaleConnError
	if errors.As(err, &stale) {
		// The server had closed the connection. Redis counts one more
		// hold for us than we know of exactly when the script ran: ask,
		// and try again only if it did not.
		before := l.rt.HoldDepth(l.name, field)
		count, herr := l.holdCount(ctx, field)
		switch {
		case herr != nil:
			err = herr
		case count == before+1:
			return 0, true, nil
		case count == before:
			res, sync, err = l.rt.EvalSyncedNoRetry(ctx, acquireScript, []string{l.name}, lease.Milliseconds(), field)
		}
	}
	if err != nil {
		if isTransport(err) && !l.rt.Holding(l.name, field) {
			// The script may have run with its reply lost. Undo it while we
			// are sure no earlier hold of ours can be hurt: a non-owner's
			// unlock changes nothing.
			l.undo(ctx, field, lease)
		}
		return 0, false, err
	}
	if res != nil {
		pttl, _ := res.(int64)
		return time.Duration(pttl) * time.Millisecond, false, nil
	}
	if sync.Failed() && l.rt.Sync.FailOnNoSync {
		l.undo(ctx, field, lease)
		return 0, false, fmt.Errorf("%w: lock %q: %d replicas, none acknowledged within %v",
			core.ErrNoSyncedReplicas, l.name, sync.Replicas, l.rt.Sync.Timeout)
	}
	return 0, true, nil
}

// undo releases one hold taken by an acquire whose outcome must not stand.
func (l *Lock) undo(ctx context.Context, field string, lease time.Duration) {
	dctx, cancel := l.rt.Detached(ctx)
	defer cancel()
	if _, err := l.unlockOnce(dctx, field, lease, l.rt.RequestID(), nil); err != nil {
		l.rt.Logger.Warn("redisson: undoing a lock acquire failed; the lease will expire",
			"lock", l.name, "err", err)
	}
}

func (l *Lock) held(ctx context.Context, field string, kind renewal.Kind, lease time.Duration, start time.Time) context.Context {
	return l.rt.Acquired(ctx, core.Acquire{Key: l.name, Owner: field, Kind: kind, TTL: lease, Start: start, OnEnd: l.onEnd})
}

// acquired finishes a successful acquire; one that completed while the
// client was closing is given back at once instead of lingering for a lease.
func (l *Lock) acquired(ctx context.Context, hctx context.Context) (context.Context, bool, error) {
	if l.rt.Done().Err() == nil {
		return hctx, true, nil
	}
	owner, _ := core.OwnerFrom(ctx)
	field := core.OwnerField(l.rt.ID, owner)
	l.undo(ctx, field, l.rt.LeaseOf(l.name, field, l.rt.WatchdogTimeout))
	return ctx, false, core.ErrClosed
}

// holdEnded wakes a local waiter when a hold ends without an unlock (lost,
// force-unlocked): nothing is published then, and local waiters do not ask
// Redis while the hold lasted.
func (l *Lock) holdEnded(cause error) {
	if errors.Is(cause, context.Canceled) {
		return
	}
	l.wakeLocal()
}

// unlockAttempts is how often an unlock is sent when its reply is lost; the
// unlock latch makes the repeats return the first attempt's answer.
const unlockAttempts = 3

// Unlock releases one hold of the owner in ctx; the last hold deletes the
// lock and wakes a waiter, or hands the lock straight to a waiter of this
// client. It works with an already cancelled context (only the owner is
// taken from it). A caller that does not hold the lock gets ErrNotOwner and
// nothing changes.
func (l *Lock) Unlock(ctx context.Context) error {
	if l.err != nil {
		return l.err
	}
	if l.rt.Done().Err() != nil {
		return core.ErrClosed
	}
	owner, ok := core.OwnerFrom(ctx)
	if !ok {
		return fmt.Errorf("%w: lock %q: the context carries no owner", core.ErrNotOwner, l.name)
	}
	field := core.OwnerField(l.rt.ID, owner)
	lease := l.rt.LeaseOf(l.name, field, l.rt.WatchdogTimeout)
	// Every attempt may take the client's timeout; the latch outlives them.
	dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), unlockAttempts*l.rt.Timeout)
	defer cancel()
	var q *queue
	if ref, ok := l.rt.Peek(l.queueKey); ok {
		defer ref.Release()
		q = ref.Value().(*queue)
	}
	res, err := l.release(dctx, q, field, lease)
	if err != nil && !errors.Is(err, core.ErrNoSyncedReplicas) {
		if isTransport(err) {
			// Whether the unlock ran is unknown: stop renewing, so the lock
			// expires with its lease if it is still there (Redisson cancels
			// renewal whatever the unlock's outcome).
			l.rt.Abandon(l.name, field, fmt.Errorf("%w: %s: unlock failed: %w", core.ErrLockLost, l.name, err))
		}
		return err
	}
	l.rt.Released(ctx, l.name, field, res.full, res.start)
	if res.full && !res.handedOff {
		// A local waiter may have checked the lock, found it busy and gone
		// to sleep before the hold above was dropped, and it may have come
		// after the unlock message (or even after we looked for waiters to
		// hand over to). Wake the oldest one now that the registry is
		// current.
		l.wakeLocal()
	}
	return err
}

// wakeLocal wakes the oldest parked local waiter, if any.
func (l *Lock) wakeLocal() {
	ref, ok := l.rt.Peek(l.queueKey)
	if !ok {
		return
	}
	defer ref.Release()
	q := ref.Value().(*queue)
	q.mu.Lock()
	if w := q.firstParked(); w != nil {
		w.wake()
	}
	q.mu.Unlock()
}

type releaseResult struct {
	full      bool // the owner's last hold was released
	handedOff bool // ... and the lock went straight to a local waiter
	start     time.Time
}

// release runs the unlock script for field, handing the lock to the oldest
// parked waiter of q when there is one and the streak allows. It returns
// ErrNotOwner when field does not hold the lock.
func (l *Lock) release(ctx context.Context, q *queue, field string, lease time.Duration) (releaseResult, error) {
	var next *waiter
	if q != nil {
		q.mu.Lock()
		if q.streak < maxHandOffStreak {
			if next = q.firstParked(); next != nil {
				next.state = handing
			}
		}
		q.mu.Unlock()
	}
	reqID := l.rt.RequestID()
	var (
		res   any
		err   error
		start time.Time
	)
	for attempt := 1; ; attempt++ {
		if attempt == 1 {
			// A later attempt may replay the first one's outcome (latch):
			// the new holder's lease counts from the first send.
			start = time.Now()
		}
		res, err = l.unlockOnce(ctx, field, lease, reqID, next)
		if err == nil || !isTransport(err) || attempt == unlockAttempts || ctx.Err() != nil {
			break
		}
		select {
		case <-time.After(time.Duration(attempt) * 50 * time.Millisecond):
		case <-ctx.Done():
		}
	}
	released := res == int64(1)
	if q != nil {
		q.mu.Lock()
		switch {
		case next != nil && released:
			next.state, next.start = handed, start
			q.pending++
			q.streak++
		case next != nil && err != nil && isTransport(err):
			// The hand-off may have happened: the waiter asks Redis.
			next.state = unknown
			q.pending++
		case next != nil:
			next.state = parked
		case released:
			q.streak = 0
		}
		if next != nil {
			next.wake()
		}
		q.mu.Unlock()
	}
	if err != nil && !errors.Is(err, core.ErrNoSyncedReplicas) {
		return releaseResult{}, err
	}
	if res == nil {
		return releaseResult{}, fmt.Errorf("%w: lock %q, owner %s", core.ErrNotOwner, l.name, field)
	}
	return releaseResult{full: released, handedOff: released && next != nil, start: start}, err
}

func (l *Lock) unlockOnce(ctx context.Context, field string, lease time.Duration, reqID string, next *waiter) (any, error) {
	keys := []string{l.name, l.channel, l.latchPrefix + reqID}
	script, args := unlockScript, []any{"0", lease.Milliseconds(), field, l.rt.PublishCommand, l.latchTTL().Milliseconds()}
	if next != nil {
		script = unlockHandOffScript
		args = append(args, next.field, next.lease.Milliseconds())
	}
	res, sync, err := l.rt.EvalSynced(ctx, script, keys, args...)
	if err != nil {
		return nil, err
	}
	if res != nil && sync.Failed() && l.rt.Sync.FailOnNoSync {
		return res, fmt.Errorf("%w: unlock of %q: %d replicas, none acknowledged within %v",
			core.ErrNoSyncedReplicas, l.name, sync.Replicas, l.rt.Sync.Timeout)
	}
	return res, nil
}

// latchTTL covers every attempt of one unlock request. Redisson computes
// (timeout + retry delay) × attempts, 16–20 s by default; ours is as long
// as our own retries can take.
func (l *Lock) latchTTL() time.Duration {
	return time.Duration(unlockAttempts+1) * l.rt.Timeout
}

// ForceUnlock deletes the lock whoever holds it and wakes a waiter, as
// Redisson's forceUnlock does. It reports whether there was a lock. Local
// holders of this client see their contexts end with ErrLockLost.
func (l *Lock) ForceUnlock(ctx context.Context) (bool, error) {
	if err := l.check(ctx); err != nil {
		return false, err
	}
	res, err := l.rt.Eval(ctx, forceUnlockScript, []string{l.name, l.channel}, "0", l.rt.PublishCommand)
	if err != nil {
		return false, err
	}
	deleted := res == int64(1)
	if deleted {
		l.rt.Lost(l.name, fmt.Errorf("%w: %s was force-unlocked", core.ErrLockLost, l.name))
	}
	return deleted, nil
}

// IsLocked reports whether anyone holds the lock.
func (l *Lock) IsLocked(ctx context.Context) (bool, error) {
	if err := l.check(ctx); err != nil {
		return false, err
	}
	n, err := l.rt.Redis.Exists(ctx, l.name).Result()
	if err != nil {
		return false, core.WrapRedisError("rlock.isLocked", err)
	}
	return n == 1, nil
}

// IsHeldBy reports whether the owner in ctx holds the lock through this
// client. A context without owner holds nothing.
func (l *Lock) IsHeldBy(ctx context.Context) (bool, error) {
	owner, ok := core.OwnerFrom(ctx)
	if !ok {
		if err := l.check(ctx); err != nil {
			return false, err
		}
		return false, nil
	}
	return l.IsHeldByOwner(ctx, owner)
}

// IsHeldByOwner reports whether owner holds the lock through this client
// (Redisson's isHeldByThread).
func (l *Lock) IsHeldByOwner(ctx context.Context, owner int64) (bool, error) {
	if err := l.check(ctx); err != nil {
		return false, err
	}
	ok, err := l.rt.Redis.HExists(ctx, l.name, core.OwnerField(l.rt.ID, owner)).Result()
	if err != nil {
		return false, core.WrapRedisError("rlock.isHeldBy", err)
	}
	return ok, nil
}

// HoldCount returns how many times the owner in ctx holds the lock (0 when it
// does not, or ctx has no owner).
func (l *Lock) HoldCount(ctx context.Context) (int, error) {
	if err := l.check(ctx); err != nil {
		return 0, err
	}
	owner, ok := core.OwnerFrom(ctx)
	if !ok {
		return 0, nil
	}
	v, err := l.rt.Redis.HGet(ctx, l.name, core.OwnerField(l.rt.ID, owner)).Result()
	if errors.Is(err, redis.Nil) {
		return 0, nil
	}
	if err != nil {
		return 0, core.WrapRedisError("rlock.holdCount", err)
	}
	return l.parseCount(v)
}

// RemainTTL returns the lock's remaining lease, with go-redis' conventions
// for the special cases: -2 (nanoseconds) when there is no lock, -1 when it
// has no expiry.
func (l *Lock) RemainTTL(ctx context.Context) (time.Duration, error) {
	if err := l.check(ctx); err != nil {
		return 0, err
	}
	d, err := l.rt.Redis.PTTL(ctx, l.name).Result()
	if err != nil {
		return 0, core.WrapRedisError("rlock.remainTTL", err)
	}
	return d, nil
}

// renewKind is the watchdog's batch renewal of plain locks.
type renewKind struct{ rt *core.Runtime }

func (k renewKind) Queue(ctx context.Context, pipe redis.Pipeliner, ttl time.Duration, leases []*renewal.Lease) func() ([]bool, error) {
	keys := make([]string, len(leases))
	args := make([]any, 1, len(leases)+1)
	args[0] = ttl.Milliseconds()
	for i, l := range leases {
		keys[i] = l.Key()
		args = append(args, l.Owner())
	}
	cmd := renewScript.EvalSha(ctx, pipe, keys, args...)
	return func() ([]bool, error) {
		vals, err := cmd.Slice()
		if err != nil {
			if core.IsNoScript(err) {
				lctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), k.rt.Timeout)
				defer cancel()
				_ = renewScript.Load(lctx, k.rt.Redis)
			}
			return nil, err
		}
		out := make([]bool, len(leases))
		for i := range out {
			if i < len(vals) {
				out[i] = vals[i] == int64(1)
			}
		}
		return out, nil
	}
}

// isTransport reports whether err left the outcome of a command unknown: a
// network failure or a timeout, not a reply from Redis.
func isTransport(err error) bool {
	var re redis.Error
	if errors.As(err, &re) {
		return false
	}
	var ne net.Error
	return errors.As(err, &ne) || errors.Is(err, context.DeadlineExceeded) ||
		errors.Is(err, context.Canceled) || errors.Is(err, net.ErrClosed) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET)
}
