// Package rwlock is Redisson's RReadWriteLock: many readers or one writer,
// reentrant, shared with Java services on the same keys.
//
// The lock is the hash <name> with field "mode" ("read" or "write"), a field
// "<client id>:<owner id>" per reader with its read hold count, and
// "<client id>:<owner id>:write" for the writer. Each read hold has its own
// key {name}:<owner field>:rwlock_timeout:<k> whose TTL is its lease, so
// that one reader's lost lease does not end the others'. Releases publish
// on redisson_rwlock:{name}: "0" after a read release (wakes one local
// waiter), "1" after a write release (wakes all).
//
// A writer may take read holds (downgrade) and then release the write lock;
// the lock stays read-locked by it. The reverse, a read holder asking for
// the write lock with the same owner, waits forever in Redisson; here it
// fails at once with ErrUpgrade and changes nothing in Redis.
//
// Ownership is a value as in package rlock: Lock and TryLock return a *Hold
// that releases exactly what it took.
package rwlock

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
	"github.com/goredisson/redisson/internal/renewal"
	"github.com/goredisson/redisson/keys"
	"github.com/goredisson/redisson/locks"
	"github.com/goredisson/redisson/source"
)

// ReadWriteLock is a handle on one named read-write lock: its ReadLock and
// WriteLock share the hash. Get one from New or
// (*redisson.Client).ReadWriteLock.
type ReadWriteLock struct {
	read, write *Lock
}

// New returns the read-write lock called name (Redisson's
// getReadWriteLock) of src's client. It panics for a nil or zero src.
func New(src *source.Source, name string) *ReadWriteLock {
	e := (*handle.Source)(src).LockEngine("rwlock.New")
	rt := e.Runtime()
	channel := keys.ReadWriteLockChannel(name)
	latch := keys.UnlockLatchPrefix(name) + ":"
	mk := func(write bool) *Lock {
		s := &scripts{rt: rt, name: name, channel: channel, latchPrefix: latch, write: write}
		cfg := engine.Config{
			Kind:    "read lock",
			Name:    name,
			Channel: channel,
			Derived: []string{latch, keys.ReadWriteLockTimeoutPrefix(name, "x"), core.Tagged(name)},
			Policy:  hub.LockPolicy, // "0" wakes one waiter, "1" all
			Renew:   readRenewal{rt},
			Scripts: s,
		}
		if write {
			cfg.Kind, cfg.FieldSuffix, cfg.Renew = "write lock", ":write", engine.PlainRenewal{RT: rt}
		}
		l := &Lock{client: lockkit.ClientOf(rt), l: e.Lock(cfg), rt: rt, s: s}
		if write {
			l.rules.Check = l.upgrade
		}
		return l
	}
	return &ReadWriteLock{read: mk(false), write: mk(true)}
}

// ReadLock returns the read lock.
func (rw *ReadWriteLock) ReadLock() *Lock { return rw.read }

// WriteLock returns the write lock.
func (rw *ReadWriteLock) WriteLock() *Lock { return rw.write }

// Name returns the lock's name (its Redis key).
func (rw *ReadWriteLock) Name() string { return rw.read.s.name }

// Lock is the read or the write lock of a ReadWriteLock. It is cheap and
// safe for concurrent use.
type Lock struct {
	client // for the multi-lock
	l      *engine.Lock
	rt     *core.Runtime
	s      *scripts
	rules  lockkit.Rules
}

// client is the lock's client, found by the multi-lock.
type client = lockkit.Client

// Name returns the lock's name.
func (l *Lock) Name() string { return l.s.name }

// Hold is one acquisition of the read or the write lock: a locks.Hold,
// whose Unlock releases exactly what it took.
type Hold = locks.Hold

// Option changes one Lock or TryLock call: a locks.Option.
type Option = locks.Option

// WithLease holds for a fixed lease, without the watchdog
// (locks.WithLease).
func WithLease(lease time.Duration) Option { return locks.WithLease(lease) }

// WithWait bounds how long TryLock waits (locks.WithWait).
func WithWait(wait time.Duration) Option { return locks.WithWait(wait) }

// WithOwner acquires for owner (locks.WithOwner): an owner re-enters its
// holds, and a writer's owner may take read holds (downgrade).
func WithOwner(owner int64) Option { return locks.WithOwner(owner) }

// upgrade refuses the write lock to an owner that holds the read lock
// through this client, when the acquisition would wait: Redisson's write
// acquire answers a reader of the same owner with the lock's TTL, and the
// caller would wait for itself. A single try just fails, as in Java.
func (l *Lock) upgrade(o lockkit.Options, waits bool) error {
	if waits && o.HasOwner && l.rt.Holds().Holding(l.s.name, core.OwnerField(l.rt.ID(), o.Owner)) {
		return fmt.Errorf("%w: owner %d holds the read lock", core.ErrUpgrade, o.Owner)
	}
	return nil
}

// Lock waits until the lock is acquired or ctx is done. ctx only bounds the
// wait.
func (l *Lock) Lock(ctx context.Context, opts ...Option) (*Hold, error) {
	return lockkit.Lock(ctx, l.l, new(Hold), opts, l.rules)
}

// TryLock tries once, or WithWait until the wait runs out; false (and no
// error) when the lock was not acquired in time.
func (l *Lock) TryLock(ctx context.Context, opts ...Option) (*Hold, bool, error) {
	return lockkit.TryLock(ctx, l.l, new(Hold), opts, l.rules)
}

// ForceUnlock deletes the lock if it is in this lock's mode (read or write)
// and publishes as a release would; it reports whether it did. The read
// holds' timeout keys are left to expire, as in Redisson. Holds of this
// client on the name end with ErrLockLost. A hash without "mode", another
// kind's (a lock's, a group multi-lock's, a rate limiter's), is left alone
// and the error wraps ErrWrongType and says what the key holds (Redisson
// answers false).
func (l *Lock) ForceUnlock(ctx context.Context) (bool, error) {
	if err := l.l.Check(ctx); err != nil {
		return false, l.l.Err("force unlock", err)
	}
	msg, mode := "0", "read"
	if l.s.write {
		msg, mode = "1", "write"
	}
	res, _, err := l.rt.Run(ctx, forceUnlockScript, core.RunOpts{}, []string{l.s.name, l.s.channel}, msg, l.rt.PublishCommand(), mode)
	if err != nil {
		return false, l.l.Err("force unlock", l.s.wrongType(ctx, err))
	}
	deleted := res == int64(1)
	if deleted {
		l.l.Lost()
	}
	return deleted, nil
}

// IsLocked reports whether the lock is held in this lock's sense: read
// mode (or a writer that also reads) for the read lock, write mode for the
// write lock.
func (l *Lock) IsLocked(ctx context.Context) (bool, error) {
	if err := l.l.Check(ctx); err != nil {
		return false, l.l.Err("is locked", err)
	}
	if l.s.write {
		mode, err := conns.Bounded(ctx, func(ctx context.Context) (string, error) {
			return l.rt.Redis().HGet(ctx, l.s.name, "mode").Result()
		})
		if errors.Is(err, redis.Nil) {
			return false, nil
		}
		if err != nil {
			return false, l.l.Err("is locked", l.s.wrongType(ctx, err))
		}
		return mode == "write", nil
	}
	res, _, err := l.rt.Run(ctx, readIsLockedScript, core.RunOpts{}, []string{l.s.name})
	if err != nil {
		return false, l.l.Err("is locked", l.s.wrongType(ctx, err))
	}
	return res == int64(1), nil
}

// IsHeldByOwner reports whether owner holds this lock through this client.
func (l *Lock) IsHeldByOwner(ctx context.Context, owner int64) (bool, error) {
	n, err := l.holdCount(ctx, "is held by owner", owner)
	return n > 0, err
}

// HoldCount returns how many times owner holds this lock through this
// client: 0 when it does not.
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

// RemainTTL returns the hash's remaining TTL: -2 (ns) when there is no
// lock, -1 when it has no expiry.
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

// scripts runs one side's scripts for the engine.
type scripts struct {
	rt                         *core.Runtime
	name, channel, latchPrefix string
	write                      bool
}

func (s *scripts) Acquire(ctx context.Context, field string, lease time.Duration) (engine.AcquireReply, error) {
	var (
		res  any
		sync core.SyncResult
		err  error
	)
	if s.write {
		res, sync, err = s.rt.Run(ctx, writeAcquireScript, core.RunOpts{Synced: true, NoRetry: true}, []string{s.name}, lease.Milliseconds(), field)
	} else {
		res, sync, err = s.rt.Run(ctx, readAcquireScript, core.RunOpts{Synced: true, NoRetry: true}, []string{s.name, keys.ReadWriteLockTimeoutPrefix(s.name, field)},
			lease.Milliseconds(), field, field+":write")
	}
	if err != nil {
		return engine.AcquireReply{Sync: sync}, err
	}
	pttl, ok := res.(int64)
	switch {
	case !ok:
		return engine.AcquireReply{Sync: sync}, fmt.Errorf("rwlock acquire: unexpected reply %v", res)
	case pttl == acquiredReply:
		return engine.AcquireReply{OK: true, Sync: sync}, nil
	}
	return engine.AcquireReply{TTL: time.Duration(pttl) * time.Millisecond, Sync: sync}, nil
}

func (s *scripts) Release(ctx context.Context, field string, lease time.Duration, reqID string, _ *engine.Successor) (engine.ReleaseReply, error) {
	var (
		res  any
		sync core.SyncResult
		err  error
	)
	latch, latchTTL := s.latchPrefix+reqID, engine.LatchTTL(s.rt).Milliseconds()
	if s.write {
		res, sync, err = s.rt.Run(ctx, writeUnlockScript, core.RunOpts{Synced: true}, []string{s.name, s.channel, latch},
			"1", lease.Milliseconds(), field, s.rt.PublishCommand(), latchTTL)
	} else {
		res, sync, err = s.rt.Run(ctx, readUnlockScript, core.RunOpts{Synced: true},
			[]string{s.name, s.channel, keys.ReadWriteLockTimeoutPrefix(s.name, field), core.Tagged(s.name), latch},
			"0", field, s.rt.PublishCommand(), latchTTL)
	}
	r := engine.ReleaseReply{Released: engine.StillHeld, Sync: sync}
	switch {
	case err != nil:
		r.Released = engine.NotOwner
		return r, err
	case res == nil:
		r.Released = engine.NotOwner
	case res == int64(1):
		r.Released = engine.Freed
	case !s.write:
		// The read unlock answers 0 both for a re-entrant reader's inner
		// hold and for a reader whose last hold went while others still
		// read: the engine's local holds tell them apart.
		r.Released = engine.Shared
	}
	return r, nil
}

// Count reads field's hold count on the master (0: none).
func (s *scripts) Count(ctx context.Context, field string) (int, error) {
	res, _, err := s.rt.Run(ctx, holdCountScript, core.RunOpts{}, []string{s.name}, field)
	if err != nil || res == nil {
		return 0, err
	}
	v, _ := res.(string)
	return parseCount(v)
}

// wrongType names the type in the way when a command met another type than
// a hash; a refusal of another kind's hash already says what it holds.
func (s *scripts) wrongType(ctx context.Context, err error) error {
	if core.IsKindError(err) {
		return err
	}
	if errors.Is(err, core.ErrWrongType) || errors.Is(core.WrapRedisError("", err), core.ErrWrongType) {
		return core.WrongTypeError(ctx, s.rt.Redis(), s.name, "hash")
	}
	return err
}

// readRenewal is the watchdog's read-lock batch (readRenewScript).
type readRenewal struct{ rt *core.Runtime }

func (k readRenewal) Queue(ctx context.Context, pipe redis.Pipeliner, ttl time.Duration, leases []*renewal.Lease) func() ([]bool, error) {
	keys := make([]string, 0, 2*len(leases))
	args := make([]any, 1, len(leases)+1)
	args[0] = ttl.Milliseconds()
	for _, l := range leases {
		keys = append(keys, l.Key(), core.Tagged(l.Key()))
		args = append(args, l.Owner())
	}
	q := k.rt.Queue(ctx, pipe, readRenewScript, keys, args...)
	return func() ([]bool, error) {
		v, err := q.Result()
		if err != nil {
			return nil, err
		}
		vals, _ := v.([]any)
		out := make([]bool, len(leases))
		for i := range out {
			out[i] = i < len(vals) && vals[i] == int64(1)
		}
		return out, nil
	}
}
