// Package rlock is Redisson's RLock: a reentrant distributed lock that Go and
// Java services can share.
//
// The lock is the hash <name> with one field "<client id>:<owner id>" whose
// value is the hold count; its TTL is the lease. A lock taken without
// WithLease has the watchdog, which renews the lease every WatchdogTimeout/3
// while the lock is held. Waiters sleep on the pub/sub channel
// redisson_lock__channel:{name} and are woken by the unlock message "0",
// never by polling; the holder's TTL bounds every sleep in case a message is
// lost.
//
// Ownership is a value: Lock and TryLock return a *Hold, and only that hold
// releases what it took (h.Unlock). The hold's Done channel (and Context) is
// closed when the hold ends: after its Unlock, or before the lease can
// have run out in Redis, with Err reporting ErrLeaseExpired when a fixed
// lease ran out, or ErrLockLost when the lease could not be renewed or the
// key vanished or was force-unlocked; with ErrClosed when the client
// closes. The context given to Lock only bounds the wait.
//
// Each acquisition has an owner, Redisson's thread: a fresh one by default,
// so that two acquisitions exclude each other like sync.Mutex. Passing an
// owner with WithOwner (h.Owner(), or your own id) re-enters a lock that
// owner holds and counts one hold more, as Java does on one thread.
package rlock

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

// Lock is a handle on one named lock. It is cheap and safe for concurrent
// use: who holds the lock is decided by holds, not by the handle. Get one
// from New or (*redisson.Client).Lock.
type Lock struct {
	client  // for the multi-lock
	l       *engine.Lock
	rt      *core.Runtime
	name    string
	channel string
	kind    string // as errors name it: "lock", "spin lock", ...
}

// client is the lock's client, found by the multi-lock.
type client = lockkit.Client

// New returns the reentrant lock called name (Redisson's getLock) of src's
// client. It panics for a nil or zero src.
func New(src *source.Source, name string) *Lock {
	l := new(Lock)
	l.init(src, "rlock.New", "lock", name, func(*scripts, *engine.Config) {})
	return l
}

// init makes l the lock kind called kind on the RLock hash name; adapt
// changes its scripts and config from RLock's.
func (l *Lock) init(src *source.Source, caller, kind, name string, adapt func(*scripts, *engine.Config)) {
	e := (*handle.Source)(src).LockEngine(caller)
	rt := e.Runtime()
	*l = Lock{client: lockkit.ClientOf(rt), rt: rt, name: name, channel: keys.LockChannel(name), kind: kind}
	s := newScripts(rt, name, l.channel)
	cfg := engine.Config{
		Kind:    kind,
		Name:    name,
		Channel: l.channel,
		Derived: []string{keys.UnlockLatchPrefix(name)},
		Policy:  hub.LockPolicy,
		Renew:   engine.PlainRenewal{RT: rt},
		HandOff: true,
		PassOn:  true,
		Scripts: s,
	}
	adapt(s, &cfg)
	l.l = e.Lock(cfg)
}

// Name returns the lock's name (its Redis key).
func (l *Lock) Name() string { return l.name }

// Hold is one acquisition of the lock: a locks.Hold, whose Unlock
// releases exactly what it took.
type Hold = locks.Hold

// Option changes one Lock or TryLock call: a locks.Option.
type Option = locks.Option

// WithLease holds the lock for a fixed lease, without the watchdog
// (locks.WithLease).
func WithLease(lease time.Duration) Option { return locks.WithLease(lease) }

// WithWait bounds how long TryLock waits (locks.WithWait).
func WithWait(wait time.Duration) Option { return locks.WithWait(wait) }

// WithOwner acquires for owner, which re-enters a lock it holds
// (locks.WithOwner).
func WithOwner(owner int64) Option { return locks.WithOwner(owner) }

// Lock waits until the lock is acquired or ctx is done, and returns the
// hold. ctx only bounds the wait: it is never cancelled by the lock, and
// ending it later does not release the hold.
func (l *Lock) Lock(ctx context.Context, opts ...Option) (*Hold, error) {
	return lockkit.Lock(ctx, l.l, new(Hold), opts, lockkit.Rules{})
}

// TryLock tries to acquire the lock once, or, WithWait, until the wait runs
// out. It reports false (and no error) when the lock was not acquired in
// time; ctx being done is an error.
func (l *Lock) TryLock(ctx context.Context, opts ...Option) (*Hold, bool, error) {
	return lockkit.TryLock(ctx, l.l, new(Hold), opts, lockkit.Rules{})
}

// ForceUnlock deletes the lock whoever holds it and wakes a waiter, as
// Redisson's forceUnlock does. It reports whether there was a lock. Holds of
// this client on it end with ErrLockLost. A key holding anything but a hash,
// or another kind's hash (a read-write lock's, a group multi-lock's, a rate
// limiter's), is not deleted: the error wraps ErrWrongType and says what
// the key holds (Redisson deletes it).
func (l *Lock) ForceUnlock(ctx context.Context) (bool, error) {
	if err := l.l.Check(ctx); err != nil {
		return false, l.l.Err("force unlock", err)
	}
	res, _, err := l.rt.Run(ctx, forceUnlockScript, core.RunOpts{}, []string{l.name, l.channel}, "0", l.rt.PublishCommand())
	if err != nil {
		return false, l.l.Err("force unlock", err)
	}
	if typ, ok := res.(string); ok {
		return false, l.l.Err("force unlock", fmt.Errorf("%w: the key holds a %s, not a hash", core.ErrWrongType, typ))
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
		return l.rt.Redis().Exists(ctx, l.name).Result()
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
		return l.rt.Redis().HExists(ctx, l.name, l.l.Field(owner)).Result()
	})
	if err != nil {
		return false, l.l.Err(op, l.wrongType(ctx, err))
	}
	return held, nil
}

// HoldCount returns how many times owner holds the lock through this client
// (Redisson's getHoldCount for that thread): 0 when it does not.
func (l *Lock) HoldCount(ctx context.Context, owner int64) (int, error) {
	return l.holdCount(ctx, "hold count", owner)
}

func (l *Lock) holdCount(ctx context.Context, op string, owner int64) (int, error) {
	if err := l.l.Check(ctx); err != nil {
		return 0, l.l.Err(op, err)
	}
	v, err := conns.Bounded(ctx, func(ctx context.Context) (string, error) {
		return l.rt.Redis().HGet(ctx, l.name, l.l.Field(owner)).Result()
	})
	if errors.Is(err, redis.Nil) {
		return 0, nil
	}
	if err == nil {
		var n int
		n, err = parseCount(v)
		if err == nil {
			return n, nil
		}
	}
	return 0, l.l.Err(op, l.wrongType(ctx, err))
}

// RemainTTL returns the lock's remaining lease, with go-redis' conventions
// for the special cases: -2 (nanoseconds) when there is no lock, -1 when it
// has no expiry.
func (l *Lock) RemainTTL(ctx context.Context) (time.Duration, error) {
	if err := l.l.Check(ctx); err != nil {
		return 0, l.l.Err("remain TTL", err)
	}
	d, err := conns.Bounded(ctx, func(ctx context.Context) (time.Duration, error) {
		return l.rt.Redis().PTTL(ctx, l.name).Result()
	})
	if err != nil {
		return 0, l.l.Err("remain TTL", err)
	}
	return d, nil
}

func (l *Lock) wrongType(ctx context.Context, err error) error {
	if errors.Is(core.WrapRedisError("", err), core.ErrWrongType) || errors.Is(err, core.ErrWrongType) {
		return core.WrongTypeError(ctx, l.rt.Redis(), l.name, "hash")
	}
	return err
}

func parseCount(v string) (int, error) {
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, fmt.Errorf("%w: a hold count field holds %q", core.ErrWrongType, v)
	}
	return n, nil
}

// scripts runs RLock's scripts for the engine.
type scripts struct {
	rt          *core.Runtime
	name        string
	channel     string
	latchPrefix string
	// Script arguments that are the same on most calls, boxed once: each
	// boxing is an allocation on the lock path.
	nameKeys []string // [name]
	// acquire is the acquire script; with reentry set (the non-reentrant
	// lock), it takes that error reply as its third argument.
	acquire   *core.Script
	reentry   any
	wdLease   int64 // the watchdog lease, ms
	wdArg     any   // wdLease
	latchArg  any   // engine.LatchTTL, ms
	publisher any   // PUBLISH or SPUBLISH
}

func newScripts(rt *core.Runtime, name, channel string) *scripts {
	wd := rt.WatchdogTimeout().Milliseconds()
	return &scripts{
		rt: rt, name: name, channel: channel, latchPrefix: keys.UnlockLatchPrefix(name) + ":",
		nameKeys: []string{name}, acquire: acquireScript, wdLease: wd, wdArg: wd,
		latchArg: engine.LatchTTL(rt).Milliseconds(), publisher: rt.PublishCommand(),
	}
}

// leaseArg returns lease in ms as a script argument.
func (s *scripts) leaseArg(lease time.Duration) any {
	if ms := lease.Milliseconds(); ms != s.wdLease {
		return ms
	}
	return s.wdArg
}

func (s *scripts) Acquire(ctx context.Context, field string, lease time.Duration) (engine.AcquireReply, error) {
	opts := core.RunOpts{Synced: true, NoRetry: true}
	var (
		res  any
		sync core.SyncResult
		err  error
	)
	if s.reentry != nil {
		res, sync, err = s.rt.Run(ctx, s.acquire, opts, s.nameKeys, s.leaseArg(lease), field, s.reentry)
		err = reentryErr(err, field)
	} else {
		res, sync, err = s.rt.Run(ctx, s.acquire, opts, s.nameKeys, s.leaseArg(lease), field)
	}
	if err != nil {
		return engine.AcquireReply{Sync: sync}, err
	}
	pttl, ok := res.(int64)
	switch {
	case res == nil:
		// Redisson's own acquire scripts (the spin lock's) answer nil.
		return engine.AcquireReply{OK: true, Sync: sync}, nil
	case !ok:
		return engine.AcquireReply{Sync: sync}, fmt.Errorf("script %s: unexpected reply %v", s.acquire.Name(), res)
	case pttl == acquiredReply:
		return engine.AcquireReply{OK: true, Sync: sync}, nil
	}
	return engine.AcquireReply{TTL: time.Duration(pttl) * time.Millisecond, Sync: sync}, nil
}

func (s *scripts) Release(ctx context.Context, field string, lease time.Duration, reqID string, next *engine.Successor) (engine.ReleaseReply, error) {
	r, err := s.release(ctx, field, lease, reqID, next)
	r.Heard = 0
	return r, err
}

// ReleaseHeard is Release without a successor that also says how many
// connections the unlock message reached (engine.HeardScripts).
func (s *scripts) ReleaseHeard(ctx context.Context, field string, lease time.Duration, reqID string) (engine.ReleaseReply, error) {
	return s.release(ctx, field, lease, reqID, nil)
}

func (s *scripts) release(ctx context.Context, field string, lease time.Duration, reqID string, next *engine.Successor) (engine.ReleaseReply, error) {
	keys := []string{s.name, s.channel, s.latchPrefix + reqID}
	script, args := unlockScript, []any{"0", s.leaseArg(lease), field, s.publisher, s.latchArg}
	if next != nil {
		script = unlockHandOffScript
		args = append(args, next.Field, next.Lease.Milliseconds())
	}
	res, sync, err := s.rt.Run(ctx, script, core.RunOpts{Synced: true}, keys, args...)
	if err != nil || res == nil {
		return engine.ReleaseReply{Released: engine.NotOwner, Sync: sync}, err
	}
	if n, _ := res.(int64); n >= 1 {
		return engine.ReleaseReply{Released: engine.Freed, Heard: int(n - 1), Sync: sync}, nil
	}
	return engine.ReleaseReply{Released: engine.StillHeld, Sync: sync}, nil
}

// Count reads field's hold count on the master (0: none): a script, so
// that the read never goes to a replica.
func (s *scripts) Count(ctx context.Context, field string) (int, error) {
	res, _, err := s.rt.Run(ctx, holdCountScript, core.RunOpts{}, s.nameKeys, field)
	if err != nil || res == nil {
		return 0, err
	}
	v, _ := res.(string)
	return parseCount(v)
}
