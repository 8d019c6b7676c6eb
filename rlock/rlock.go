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
// closed when the hold ends: after its Unlock, or, with Err reporting
// ErrLockLost, before the lease can have run out in Redis when it could not
// be renewed, when the key vanished or was force-unlocked; with ErrClosed
// when the client closes. The context given to Lock only bounds the wait.
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

	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/internal/engine"
	"github.com/goredisson/redisson/internal/objects"
	"github.com/goredisson/redisson/internal/pubsub"
)

func init() {
	objects.NewRLock = func(e *engine.Engine, name string) any { return newLock(e, name) }
}

// Lock is a handle on one named lock. It is cheap and safe for concurrent
// use: who holds the lock is decided by holds, not by the handle. Get one
// from (*redisson.Client).Lock.
type Lock struct {
	l       *engine.Lock
	rt      *core.Runtime
	name    string
	channel string
}

func newLock(e *engine.Engine, name string) *Lock {
	rt := e.Runtime()
	l := &Lock{rt: rt, name: name, channel: ChannelName(name)}
	l.l = e.Lock(engine.Config{
		Kind:    "lock",
		Name:    name,
		Channel: l.channel,
		Policy:  pubsub.LockPolicy,
		Renew:   engine.PlainRenewal{RT: rt},
		HandOff: true,
		Scripts: &scripts{rt: rt, name: name, channel: l.channel, latchPrefix: LatchPrefix(name) + ":"},
	})
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

// Hold is one acquisition of a lock. Keep it: Unlock releases exactly this
// hold, once. It is safe for concurrent use.
type Hold struct {
	h engine.Hold
}

// Unlock releases this hold. The owner's last hold deletes the lock and
// wakes a waiter (or hands the lock straight to a waiter of this client).
// It works with a done ctx: the release runs on its own context bounded by
// the client's Timeout. A second Unlock of the same hold sends nothing and
// returns an error wrapping ErrNotOwner; so does an Unlock after Redis lost
// the hold (the lease ran out unseen); a hold that ended returns why
// (ErrLockLost, ErrClosed) and sends nothing.
func (h *Hold) Unlock(ctx context.Context) error { return h.h.Unlock(ctx) }

// Done is closed when the hold ends: after Unlock, or when ownership is lost
// or the client closes (see Err). A lost hold's Done is closed before its
// lease can have run out in Redis, by this process's clock.
func (h *Hold) Done() <-chan struct{} { return h.h.Done() }

// Err is nil while the hold lasts. Then it is context.Canceled after
// Unlock, an error wrapping ErrLockLost when ownership was lost, or
// ErrClosed when the client closed.
func (h *Hold) Err() error { return h.h.Err() }

// Context returns a context that is done when the hold ends, with Err as its
// cause (context.Cause); it carries the values of the context given to Lock,
// not its cancellation. Run the critical section under it.
func (h *Hold) Context() context.Context { return h.h.Context() }

// Owner returns the hold's owner id: pass it WithOwner to re-enter the lock,
// or to query HoldCount and IsHeldByOwner.
func (h *Hold) Owner() int64 { return h.h.Owner() }

// Name returns the lock's name.
func (h *Hold) Name() string { return h.h.Key() }

// Option changes one acquisition.
type Option func(*acquireOptions)

type acquireOptions struct {
	lease, wait       time.Duration
	owner             int64
	hasLease, hasWait bool
	hasOwner          bool
	// noRetry: a multi-lock's member ends its wait with its first failed
	// try; the multi-lock retries the set (member.go).
	noRetry bool
}

// WithLease holds the lock for a fixed lease, without watchdog: it expires
// lease after the acquire unless unlocked before. lease must be at least
// 1ms. Without WithLease the watchdog keeps the lock until Unlock.
func WithLease(lease time.Duration) Option {
	return func(o *acquireOptions) { o.lease, o.hasLease = lease, true }
}

// WithWait bounds how long TryLock waits for the lock: 0 tries once (the
// default), a positive wait keeps trying until it runs out (or ctx is done).
// A negative wait is an error, and so is WithWait on Lock, which waits until
// ctx is done.
func WithWait(wait time.Duration) Option {
	return func(o *acquireOptions) { o.wait, o.hasWait = wait, true }
}

// WithOwner acquires for owner (a Java thread's id, a positive number such
// as a Hold's Owner): an owner that holds the lock re-enters it, and its
// field is "<client id>:<owner>". Without WithOwner every acquisition gets a
// fresh owner. Goroutines sharing an owner must not lock the same lock at
// the same time (one Java thread cannot either).
func WithOwner(owner int64) Option {
	return func(o *acquireOptions) { o.owner, o.hasOwner = owner, true }
}

func (l *Lock) request(op string, wait bool, opts []Option) (engine.Request, error) {
	var o acquireOptions
	for _, opt := range opts {
		opt(&o)
	}
	r := engine.Request{Owner: o.owner, Lease: o.lease, Wait: wait, NoRetry: o.noRetry}
	var err error
	switch {
	case o.hasLease && o.lease < time.Millisecond:
		err = fmt.Errorf("%w: the lease must be at least 1ms, got %v (leave WithLease out for the watchdog)", core.ErrInvalidArgument, o.lease)
	case o.hasWait && wait:
		err = fmt.Errorf("%w: Lock waits until ctx is done; bound the wait with ctx, or use TryLock with WithWait", core.ErrInvalidArgument)
	case o.hasWait && o.wait < 0:
		err = fmt.Errorf("%w: the wait must not be negative, got %v", core.ErrInvalidArgument, o.wait)
	case o.hasOwner && o.owner <= 0:
		err = fmt.Errorf("%w: the owner id must be positive, got %d", core.ErrInvalidArgument, o.owner)
	}
	if err != nil {
		return r, l.l.Err(op, err)
	}
	if !wait && o.wait > 0 {
		r.Wait, r.WaitFor = true, o.wait
	}
	return r, nil
}

// Lock waits until the lock is acquired or ctx is done, and returns the
// hold. ctx only bounds the wait: it is never cancelled by the lock, and
// ending it later does not release the hold.
func (l *Lock) Lock(ctx context.Context, opts ...Option) (*Hold, error) {
	r, err := l.request("lock", true, opts)
	if err != nil {
		return nil, err
	}
	h := &Hold{}
	ok, err := l.l.Acquire(ctx, &h.h, r)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, l.l.Err("lock", context.Cause(ctx))
	}
	return h, nil
}

// TryLock tries to acquire the lock once, or, WithWait, until the wait runs
// out. It reports false (and no error) when the lock was not acquired in
// time; ctx being done is an error.
func (l *Lock) TryLock(ctx context.Context, opts ...Option) (*Hold, bool, error) {
	r, err := l.request("try lock", false, opts)
	if err != nil {
		return nil, false, err
	}
	h := &Hold{}
	ok, err := l.l.Acquire(ctx, &h.h, r)
	if err != nil || !ok {
		return nil, false, err
	}
	return h, true, nil
}

// ForceUnlock deletes the lock whoever holds it and wakes a waiter, as
// Redisson's forceUnlock does. It reports whether there was a lock. Holds of
// this client on it end with ErrLockLost. A key holding anything but a hash
// is not deleted: the error wraps ErrWrongType and names the type (Redisson
// deletes it).
func (l *Lock) ForceUnlock(ctx context.Context) (bool, error) {
	if err := l.l.Check(ctx); err != nil {
		return false, l.l.Err("force unlock", err)
	}
	res, err := l.rt.Eval(ctx, forceUnlockScript, []string{l.name, l.channel}, "0", l.rt.PublishCommand())
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
	n, err := core.Bounded(ctx, func(ctx context.Context) (int64, error) {
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
	n, err := l.holdCount(ctx, "is held by owner", owner)
	return n > 0, err
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
	v, err := core.Bounded(ctx, func(ctx context.Context) (string, error) {
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
	d, err := core.Bounded(ctx, func(ctx context.Context) (time.Duration, error) {
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
}

func (s *scripts) Acquire(ctx context.Context, field string, lease time.Duration) (time.Duration, bool, core.SyncResult, error) {
	res, sync, err := s.rt.EvalSyncedNoRetry(ctx, acquireScript, []string{s.name}, lease.Milliseconds(), field)
	if err != nil {
		return 0, false, sync, err
	}
	if res != nil {
		pttl, _ := res.(int64)
		return time.Duration(pttl) * time.Millisecond, false, sync, nil
	}
	return 0, true, sync, nil
}

func (s *scripts) Release(ctx context.Context, field string, lease time.Duration, reqID string, next *engine.Successor) (engine.Released, core.SyncResult, error) {
	keys := []string{s.name, s.channel, s.latchPrefix + reqID}
	script, args := unlockScript, []any{"0", lease.Milliseconds(), field, s.rt.PublishCommand(), engine.LatchTTL(s.rt).Milliseconds()}
	if next != nil {
		script = unlockHandOffScript
		args = append(args, next.Field, next.Lease.Milliseconds())
	}
	res, sync, err := s.rt.EvalSynced(ctx, script, keys, args...)
	switch {
	case err != nil:
		return engine.NotOwner, sync, err
	case res == nil:
		return engine.NotOwner, sync, nil
	case res == int64(1):
		return engine.Freed, sync, nil
	}
	return engine.StillHeld, sync, nil
}

// Count reads field's hold count on the master (0: none): a script, so
// that the read never goes to a replica.
func (s *scripts) Count(ctx context.Context, field string) (int, error) {
	res, err := s.rt.Eval(ctx, holdCountScript, []string{s.name}, field)
	if err != nil || res == nil {
		return 0, err
	}
	v, _ := res.(string)
	return parseCount(v)
}
