// Package fairlock is Redisson's RFairLock: a reentrant distributed lock that
// hands itself out in the order the waiters asked, shared with Java services
// on the same keys.
//
// The lock is RLock's hash <name> (field "<client id>:<owner id>" → hold
// count, TTL = lease, watchdog renewal). Waiters line up in the Redis list
// redisson_lock_queue:{name}; the zset redisson_lock_timeout:{name} holds,
// per waiter, the time (client clock, ms) after which the others skip it as
// stale. Each waiter sleeps on its own channel
// redisson_lock__channel:{name}:<owner field>, and a release wakes only the
// queue's head there. Waiters of one client never pass each other locally:
// every one takes its turn in the Redis queue, which is the point of the
// lock.
//
// Lock and TryLock with WithWait queue the caller; TryLock without a wait
// tries once and never queues. A wait that ends without the lock (ctx done,
// the wait elapsed, the client closed) takes its entry out of the queue
// before returning. The stale interval of a Lock waiter is the client's
// FairLockWaitTimeout (Redisson's fairLockWaitTimeout, 300 s), or the time
// its ctx has left when that is shorter (as Redisson's tryLock(waitTime)
// counts its wait); of a TryLock waiter its wait. Every client on a lock
// must use the same FairLockWaitTimeout. A queued try is not cut at the
// caller's deadline: it waits for its reply (within the client's Timeout)
// so that the caller's leave takes its entry out before the call returns;
// a deadline of a few ms is overrun by a round trip or two
// (docs/giving-up.md).
//
// Ownership is a value, as in package rlock: Lock and TryLock return a *Hold
// that releases exactly what it took; its Done channel closes when the hold
// ends. WithOwner re-enters a lock an owner holds.
package fairlock

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson/internal/conns"
	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/internal/engine"
	"github.com/goredisson/redisson/internal/handle"
	"github.com/goredisson/redisson/internal/hub"
	"github.com/goredisson/redisson/internal/lockkit"
	"github.com/goredisson/redisson/keys"
	"github.com/goredisson/redisson/locks"
	"github.com/goredisson/redisson/source"
)

// Lock is a handle on one named fair lock. It is cheap and safe for
// concurrent use: who holds the lock is decided by holds, not by the handle.
// Get one from New or (*redisson.Client).FairLock.
type Lock struct {
	client // for the multi-lock
	l      *engine.Lock
	rt     *core.Runtime
	s      *scripts
	kind   string // as errors name it
}

// client is the lock's client, found by the multi-lock.
type client = lockkit.Client

// New returns the fair lock called name (Redisson's getFairLock) of src's
// client. It panics for a nil or zero src.
func New(src *source.Source, name string) *Lock {
	l := new(Lock)
	l.init(src, "fairlock.New", "fair lock", name, tryOnceScript, waitingScript, nil)
	return l
}

// init makes l the fair lock kind called kind, with the acquire scripts
// tryOnce and waiting; reentry, when set, is their last argument.
func (l *Lock) init(src *source.Source, caller, kind, name string, tryOnce, waiting *core.Script, reentry any) {
	e := (*handle.Source)(src).LockEngine(caller)
	rt := e.Runtime()
	s := &scripts{
		rt:          rt,
		name:        name,
		queue:       keys.FairLockQueue(name),
		timeout:     keys.FairLockTimeout(name),
		channel:     keys.LockChannel(name),
		latchPrefix: keys.UnlockLatchPrefix(name) + ":",
		tryOnce:     tryOnce,
		waiting:     waiting,
		reentry:     reentry,
	}
	*l = Lock{client: lockkit.ClientOf(rt), rt: rt, s: s, kind: kind}
	l.l = e.Lock(engine.Config{
		Kind:       kind,
		Name:       name,
		ChannelFor: func(field string) string { return s.channel + ":" + field },
		Derived:    []string{s.queue, s.timeout, s.channel, s.latchPrefix},
		Policy:     hub.LockPolicy,
		Renew:      engine.PlainRenewal{RT: rt},
		HandOff:    false, // a local hand-off would jump the Redis queue
		RedisQueue: true,
		// Only the non-reentrant kind's scripts take a reentry reply.
		NonReentrant: reentry != nil,
		Scripts:      s,
	})
}

// Name returns the lock's name (its Redis key).
func (l *Lock) Name() string { return l.s.name }

// Hold is one acquisition of the fair lock: a locks.Hold, whose Unlock
// releases exactly what it took; the owner's last hold wakes the queue's
// head.
type Hold = locks.Hold

// Option changes one Lock or TryLock call: a locks.Option.
type Option = locks.Option

// WithLease holds the lock for a fixed lease, without the watchdog
// (locks.WithLease).
func WithLease(lease time.Duration) Option { return locks.WithLease(lease) }

// WithWait makes TryLock wait in the queue for at most wait
// (locks.WithWait). The wait is also the caller's stale interval in the
// queue, as Redisson's tryLock(waitTime), so a positive wait must be at
// least 1ms.
func WithWait(wait time.Duration) Option { return locks.WithWait(wait) }

// WithOwner acquires for owner, which re-enters a lock it holds
// (locks.WithOwner).
func WithOwner(owner int64) Option { return locks.WithOwner(owner) }

// rules: the wait is also a queue interval in whole ms.
var rules = lockkit.Rules{WholeMSWait: true}

// Lock queues for the lock and waits until it is this caller's turn and the
// lock is free, or until ctx is done (then the caller leaves the queue).
// ctx only bounds the wait; ending it later does not release the hold.
func (l *Lock) Lock(ctx context.Context, opts ...Option) (*Hold, error) {
	return lockkit.Lock(ctx, l.l, new(Hold), opts, rules)
}

// TryLock tries once without queueing, or, WithWait, queues and waits until
// the wait runs out. It reports false (and no error) when the lock was not
// acquired in time; ctx being done is an error.
func (l *Lock) TryLock(ctx context.Context, opts ...Option) (*Hold, bool, error) {
	return lockkit.TryLock(ctx, l.l, new(Hold), opts, rules)
}

// ForceUnlock deletes the lock whoever holds it and wakes the queue's head,
// as Redisson's forceUnlock does. It reports whether there was a lock. Holds
// of this client on it end with ErrLockLost. When the lock's key holds
// anything but a hash, or its queue or timeout key another type than a list
// or a zset, nothing is changed and the error wraps ErrWrongType and names
// the key and its type (Redisson deletes a lock key of any type); so too
// when the lock's key is another kind's hash (a read-write lock's, a group
// multi-lock's, a rate limiter's), and the error says which.
func (l *Lock) ForceUnlock(ctx context.Context) (bool, error) {
	if err := l.l.Check(ctx); err != nil {
		return false, l.l.Err("force unlock", err)
	}
	s := l.s
	res, _, err := l.rt.Run(ctx, forceUnlockScript, core.RunOpts{}, []string{s.name, s.queue, s.timeout, s.channel},
		"0", nowMS(), l.rt.PublishCommand())
	if err != nil {
		return false, l.l.Err("force unlock", s.wrongType(ctx, err))
	}
	if kt, ok := res.([]any); ok && len(kt) == 3 {
		return false, l.l.Err("force unlock", fmt.Errorf("%w: %v holds a %v, not a %v", core.ErrWrongType, kt[0], kt[1], kt[2]))
	}
	deleted := res == int64(1)
	if deleted {
		l.l.Lost()
	}
	return deleted, nil
}

// IsLocked reports whether anyone holds the lock.
func (l *Lock) IsLocked(ctx context.Context) (bool, error) {
	if err := l.l.Check(ctx); err != nil {
		return false, l.l.Err("is locked", err)
	}
	n, err := conns.Bounded(ctx, func(ctx context.Context) (int64, error) {
		return l.rt.Redis().Exists(ctx, l.s.name).Result()
	})
	if err != nil {
		return false, l.l.Err("is locked", err)
	}
	return n == 1, nil
}

// IsHeldByOwner reports whether owner holds the lock through this client
// (Redisson's isHeldByThread).
func (l *Lock) IsHeldByOwner(ctx context.Context, owner int64) (bool, error) {
	const op = "is held by owner"
	if err := l.l.Check(ctx); err != nil {
		return false, l.l.Err(op, err)
	}
	held, err := conns.Bounded(ctx, func(ctx context.Context) (bool, error) {
		return l.rt.Redis().HExists(ctx, l.s.name, l.l.Field(owner)).Result()
	})
	if err != nil {
		return false, l.l.Err(op, l.s.wrongType(ctx, err))
	}
	return held, nil
}

// HoldCount returns how many times owner holds the lock through this client:
// 0 when it does not.
func (l *Lock) HoldCount(ctx context.Context, owner int64) (int, error) {
	return l.holdCount(ctx, "hold count", owner)
}

func (l *Lock) holdCount(ctx context.Context, op string, owner int64) (int, error) {
	if err := l.l.Check(ctx); err != nil {
		return 0, l.l.Err(op, err)
	}
	v, err := conns.Bounded(ctx, func(ctx context.Context) (string, error) {
		return l.rt.Redis().HGet(ctx, l.s.name, l.l.Field(owner)).Result()
	})
	if errors.Is(err, redis.Nil) {
		return 0, nil
	}
	if err == nil {
		var n int
		if n, err = parseCount(v); err == nil {
			return n, nil
		}
	}
	return 0, l.l.Err(op, l.s.wrongType(ctx, err))
}

// RemainTTL returns the lock's remaining lease: -2 (ns) when there is no
// lock, -1 when it has no expiry (go-redis' conventions).
func (l *Lock) RemainTTL(ctx context.Context) (time.Duration, error) {
	if err := l.l.Check(ctx); err != nil {
		return 0, l.l.Err("remain TTL", err)
	}
	d, err := conns.Bounded(ctx, func(ctx context.Context) (time.Duration, error) {
		return l.rt.Redis().PTTL(ctx, l.s.name).Result()
	})
	if err != nil {
		return 0, l.l.Err("remain TTL", err)
	}
	return d, nil
}

func parseCount(v string) (int, error) {
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, fmt.Errorf("%w: a hold count field holds %q", core.ErrWrongType, v)
	}
	return n, nil
}

// headPause is how long a queued waiter sleeps when the lock is free but
// another waiter is first in line.
const headPause = 10 * time.Millisecond

// nowMS is the client's wall clock in ms, which Redisson's fair-lock
// scripts compare queue deadlines with.
func nowMS() int64 { return time.Now().UnixMilli() }

// scripts runs the fair lock's scripts for the engine.
type scripts struct {
	rt                            *core.Runtime
	name, queue, timeout, channel string
	latchPrefix                   string
	// The acquire scripts; with reentry set (the non-reentrant fair
	// lock), they take it as their last argument.
	tryOnce, waiting *core.Script
	reentry          any
}

// run sends an acquire script with args, and reentry after them when set.
func (s *scripts) run(ctx context.Context, script *core.Script, field string, args ...any) (any, core.SyncResult, error) {
	if s.reentry != nil {
		args = append(args, s.reentry)
	}
	res, sync, err := s.rt.Run(ctx, script, core.RunOpts{Synced: true, NoRetry: true}, s.keys(), args...)
	if s.reentry != nil {
		err = reentryErr(err, field)
	}
	return res, sync, err
}

// waitMS is the queue interval of an acquisition bounded by wait (0: Lock).
func (s *scripts) waitMS(wait time.Duration) int64 {
	if wait > 0 {
		return max(wait.Milliseconds(), 1)
	}
	return s.rt.FairLockWaitTimeout().Milliseconds()
}

func (s *scripts) keys() []string { return []string{s.name, s.queue, s.timeout} }

// Acquire is the try-once variant.
func (s *scripts) Acquire(ctx context.Context, field string, lease time.Duration) (engine.AcquireReply, error) {
	res, sync, err := s.run(ctx, s.tryOnce, field, lease.Milliseconds(), field, nowMS(), s.waitMS(0))
	if err != nil {
		return engine.AcquireReply{Sync: sync}, s.wrongType(ctx, err)
	}
	// "Not acquired" carries no TTL: sleep as for a lock without one.
	return engine.AcquireReply{TTL: -1, OK: res == nil, Sync: sync}, nil
}

// AcquireQueued is the waiting variant.
func (s *scripts) AcquireQueued(ctx context.Context, field string, lease, wait time.Duration) (engine.AcquireReply, error) {
	res, sync, err := s.run(ctx, s.waiting, field, lease.Milliseconds(), field, s.waitMS(wait), nowMS())
	if err != nil {
		return engine.AcquireReply{Sync: sync}, s.wrongType(ctx, err)
	}
	if res == nil {
		return engine.AcquireReply{OK: true, Sync: sync}, nil
	}
	ttl, _ := res.(int64)
	if ttl == 0 {
		// Queued behind a head that has yet to take the free lock, or
		// that vanished and holds everyone back until it turns stale:
		// Java retries at once; a short pause spares Redis a busy loop.
		return engine.AcquireReply{TTL: headPause, Sync: sync}, nil
	}
	return engine.AcquireReply{TTL: time.Duration(ttl) * time.Millisecond, Sync: sync}, nil
}

// AcquireFailed leaves the queue; safe to repeat, so it may be retried. It
// then passes on a wake-up this waiter may have swallowed (wakeHeadScript).
func (s *scripts) AcquireFailed(ctx context.Context, field string, wait time.Duration) error {
	if _, _, err := s.rt.Run(ctx, acquireFailedScript, core.RunOpts{}, []string{s.queue, s.timeout}, field, s.waitMS(wait)); err != nil {
		return s.wrongType(ctx, err)
	}
	_, _, err := s.rt.Run(ctx, wakeHeadScript, core.RunOpts{}, []string{s.name, s.queue, s.channel}, "0", s.rt.PublishCommand())
	return s.wrongType(ctx, err)
}

func (s *scripts) Release(ctx context.Context, field string, lease time.Duration, reqID string, _ *engine.Successor) (engine.ReleaseReply, error) {
	keys := []string{s.name, s.queue, s.timeout, s.channel, s.latchPrefix + reqID}
	res, sync, err := s.rt.Run(ctx, unlockScript, core.RunOpts{Synced: true}, keys,
		"0", lease.Milliseconds(), field, nowMS(), s.rt.PublishCommand(), engine.LatchTTL(s.rt).Milliseconds())
	r := engine.ReleaseReply{Released: engine.StillHeld, Sync: sync}
	switch {
	case err != nil:
		r.Released = engine.NotOwner
		return r, s.wrongType(ctx, err)
	case res == nil:
		r.Released = engine.NotOwner
	case res == int64(1):
		r.Released = engine.Freed
	}
	return r, nil
}

// Count reads field's hold count on the master (0: none).
func (s *scripts) Count(ctx context.Context, field string) (int, error) {
	res, _, err := s.rt.Run(ctx, holdCountScript, core.RunOpts{}, []string{s.name}, field)
	if err != nil || res == nil {
		return 0, s.wrongType(ctx, err)
	}
	v, _ := res.(string)
	return parseCount(v)
}

// wrongType names what is in the way when one of the lock's three keys
// holds another type: the script's WRONGTYPE does not say which. A refusal
// of another kind's hash already says what it holds.
func (s *scripts) wrongType(ctx context.Context, err error) error {
	if err == nil || core.IsKindError(err) || !(errors.Is(err, core.ErrWrongType) || errors.Is(core.WrapRedisError("", err), core.ErrWrongType)) {
		return err
	}
	tctx, cancel := s.rt.ForRelease(ctx)
	defer cancel()
	for _, k := range []struct{ key, want string }{{s.name, "hash"}, {s.queue, "list"}, {s.timeout, "zset"}} {
		typ, terr := conns.Bounded(tctx, func(ctx context.Context) (string, error) {
			return s.rt.Redis().Type(ctx, k.key).Result()
		})
		if terr == nil && typ != "none" && typ != k.want {
			return fmt.Errorf("%w: %s holds a %s, not a %s", core.ErrWrongType, k.key, typ, k.want)
		}
	}
	return err
}
