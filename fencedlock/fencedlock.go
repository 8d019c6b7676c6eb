// Package fencedlock is Redisson's RFencedLock (3.19.0+): a reentrant
// distributed lock, wire-identical with RLock, whose every acquisition also
// gets a fencing token, a number strictly greater than every token the lock
// handed out before.
//
// A lease can run out while its holder is stalled (a GC pause, a partition)
// without the holder noticing in time; then two processes believe they hold
// the lock. Fencing tokens make that harmless for a resource that checks
// them: pass the hold's Token with every write, and let the resource refuse
// a write whose token is smaller than the largest one it has seen.
//
// The lock is the hash <name> of RLock (field "<client id>:<owner id>" →
// hold count, TTL = lease, watchdog renewal, unlock message "0" on
// redisson_lock__channel:{name}); the tokens come from the string
// redisson_lock_token:{name}, incremented by every acquisition, re-entry
// included, and never reset except by Delete. Java's lockAndGetToken,
// tryLockAndGetToken and plain lock/tryLock on the same name interoperate
// with Lock and TryLock here.
//
// Ownership is a value, as in package rlock: Lock and TryLock return a
// *Hold, its Token is the acquisition's token, and only the hold releases
// what it took. Its Done channel (and Context) is closed when the hold ends;
// when ownership is lost (Err wraps ErrLockLost) it is closed before the
// lease can have run out in Redis, so before another owner can get a newer
// token.
package fencedlock

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
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

// Lock is a handle on one named fenced lock. It is cheap and safe for
// concurrent use: who holds the lock is decided by holds, not by the
// handle. Get one from New or (*redisson.Client).FencedLock.
type Lock struct {
	client   // for the multi-lock
	l        *engine.Lock
	rt       *core.Runtime
	s        *scripts
	name     string
	channel  string
	tokenKey string
}

// client is the lock's client, found by the multi-lock.
type client = lockkit.Client

// New returns the fenced lock called name (Redisson's RFencedLock) of src's
// client. It panics for a nil or zero src.
func New(src *source.Source, name string) *Lock {
	e := (*handle.Source)(src).LockEngine("fencedlock.New")
	rt := e.Runtime()
	l := &Lock{client: lockkit.ClientOf(rt), rt: rt, name: name, channel: keys.LockChannel(name), tokenKey: keys.FencedLockToken(name)}
	l.s = &scripts{rt: rt, name: name, channel: l.channel, tokenKey: l.tokenKey, latchPrefix: keys.UnlockLatchPrefix(name) + ":"}
	l.l = e.Lock(engine.Config{
		Kind:    "fenced lock",
		Name:    name,
		Channel: l.channel,
		Derived: []string{l.tokenKey, keys.UnlockLatchPrefix(name)},
		Policy:  hub.LockPolicy,
		Renew:   engine.PlainRenewal{RT: rt},
		// A release hands the lock straight to a waiter of this client and
		// issues its token in the same script; a hand-off whose reply is
		// lost is resolved from Redis with the token.
		HandOff: true,
		Scripts: l.s,
	})
	return l
}

// Name returns the lock's name (its Redis key).
func (l *Lock) Name() string { return l.name }

// Hold is one acquisition of a fenced lock: a locks.Hold (Unlock, Done,
// Err, Context, Owner, Name) with the acquisition's fencing token. A
// release by the owner's last hold may hand the lock straight to a waiter
// of this client, with a new token. &h.Hold is the *locks.Hold, for code
// that takes a hold of any lock kind.
type Hold struct {
	locks.Hold
}

// Token returns the acquisition's fencing token: greater than the token of
// every earlier acquisition of the lock, by any client. A re-entry gets a
// token of its own, so while an owner holds the lock several times, its
// newest hold has the token a fenced resource accepts.
func (h *Hold) Token() int64 {
	if h == nil {
		return 0
	}
	return lockkit.Engine(&h.Hold).Value()
}

// The methods below are locks.Hold's, spelled out so that a nil *Hold
// answers as a nil locks.Hold does (an error, a done context) instead of
// panicking: a promoted method would take the address of a nil Hold's
// field first.

// Unlock releases this hold (locks.Hold's Unlock).
func (h *Hold) Unlock(ctx context.Context) error { return h.base().Unlock(ctx) }

// Extend sets the lock's lease to lease from now (locks.Hold's Extend).
func (h *Hold) Extend(ctx context.Context, lease time.Duration) error {
	return h.base().Extend(ctx, lease)
}

// Done is closed when the hold ends (locks.Hold's Done).
func (h *Hold) Done() <-chan struct{} { return h.base().Done() }

// Err is nil while the hold lasts, then why it ended (locks.Hold's Err).
func (h *Hold) Err() error { return h.base().Err() }

// Context is done when the hold ends (locks.Hold's Context).
func (h *Hold) Context() context.Context { return h.base().Context() }

// Owner returns the hold's owner id (locks.Hold's Owner).
func (h *Hold) Owner() int64 { return h.base().Owner() }

// Name returns the lock's name (locks.Hold's Name).
func (h *Hold) Name() string { return h.base().Name() }

// base is the embedded hold, nil for a nil *Hold.
func (h *Hold) base() *locks.Hold {
	if h == nil {
		return nil
	}
	return &h.Hold
}

// Option changes one Lock or TryLock call: a locks.Option.
type Option = locks.Option

// WithLease holds the lock for a fixed lease, without the watchdog
// (locks.WithLease). Unlike Redisson's lockAndGetToken(leaseTime, unit),
// the lease is honoured.
func WithLease(lease time.Duration) Option { return locks.WithLease(lease) }

// WithWait bounds how long TryLock waits (locks.WithWait).
func WithWait(wait time.Duration) Option { return locks.WithWait(wait) }

// WithOwner acquires for owner, which re-enters a lock it holds, with a new
// token (locks.WithOwner).
func WithOwner(owner int64) Option { return locks.WithOwner(owner) }

// Lock waits until the lock is acquired or ctx is done, and returns the
// hold with its token (Redisson's lockAndGetToken). ctx only bounds the
// wait: it is never cancelled by the lock, and ending it later does not
// release the hold.
func (l *Lock) Lock(ctx context.Context, opts ...Option) (*Hold, error) {
	h := new(Hold)
	if _, err := lockkit.Lock(ctx, l.l, &h.Hold, opts, lockkit.Rules{}); err != nil {
		return nil, err
	}
	return h, nil
}

// TryLock tries to acquire the lock once, or, WithWait, until the wait runs
// out (Redisson's tryLockAndGetToken). It reports false (and no error) when
// the lock was not acquired in time; ctx being done is an error.
func (l *Lock) TryLock(ctx context.Context, opts ...Option) (*Hold, bool, error) {
	h := new(Hold)
	if _, ok, err := lockkit.TryLock(ctx, l.l, &h.Hold, opts, lockkit.Rules{}); !ok {
		return nil, false, err
	}
	return h, true, nil
}

// Token returns the lock's latest token (Redisson's getToken): the token of
// the current holder's newest acquisition while the lock is held, else of
// the last one. It is 0 when the lock was never taken (or was deleted).
func (l *Lock) Token(ctx context.Context) (int64, error) {
	if err := l.l.Check(ctx); err != nil {
		return 0, l.l.Err("token", err)
	}
	res, _, err := l.rt.Run(ctx, tokenScript, core.RunOpts{}, []string{l.tokenKey})
	if err != nil {
		return 0, l.l.Err("token", l.s.wrongType(ctx, err))
	}
	if res == nil {
		return 0, nil
	}
	t, err := l.s.parseToken(res)
	if err != nil {
		return 0, l.l.Err("token", err)
	}
	return t, nil
}

// ForceUnlock deletes the lock whoever holds it and wakes a waiter, as
// Redisson's forceUnlock does; the token counter stays. It reports whether
// there was a lock. Holds of this client on it end with ErrLockLost. A key
// holding anything but a hash, or another kind's hash (a read-write lock's,
// a group multi-lock's, a rate limiter's), is not deleted: the error wraps
// ErrWrongType and says what the key holds (Redisson deletes it).
func (l *Lock) ForceUnlock(ctx context.Context) (bool, error) {
	if err := l.l.Check(ctx); err != nil {
		return false, l.l.Err("force unlock", err)
	}
	res, _, err := l.rt.Run(ctx, forceUnlockScript, core.RunOpts{}, []string{l.name, l.channel}, "0", l.rt.PublishCommand())
	if err != nil {
		return false, l.l.Err("force unlock", err)
	}
	if typ, ok := res.(string); ok {
		return false, l.l.Err("force unlock", fmt.Errorf("%w: %s holds a %s, not a hash", core.ErrWrongType, l.name, typ))
	}
	deleted := res == int64(1)
	if deleted {
		l.l.Lost()
	}
	return deleted, nil
}

// Delete deletes the lock and its token counter, as Redisson's delete()
// does, and reports whether either existed. A name holding anything but a
// lock's hash is left alone, as by ForceUnlock (ErrWrongType). Holds of this client end with
// ErrLockLost, and (unlike Redisson) waiters are woken when a held lock was
// deleted. The next acquisition gets token 1 again: a resource that keeps
// the largest token it has seen refuses writes until tokens pass it, so do
// not Delete a lock whose tokens such a resource checks.
func (l *Lock) Delete(ctx context.Context) (bool, error) {
	if err := l.l.Check(ctx); err != nil {
		return false, l.l.Err("delete", err)
	}
	res, _, err := l.rt.Run(ctx, deleteScript, core.RunOpts{}, []string{l.name, l.tokenKey, l.channel}, "0", l.rt.PublishCommand())
	if err != nil {
		return false, l.l.Err("delete", err)
	}
	if typ, ok := res.(string); ok {
		return false, l.l.Err("delete", fmt.Errorf("%w: %s holds a %s, not a hash", core.ErrWrongType, l.name, typ))
	}
	l.l.Lost()
	return res == int64(1), nil
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
	return 0, l.l.Err(op, l.s.wrongType(ctx, err))
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

func parseCount(v string) (int, error) {
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, fmt.Errorf("%w: a hold count field holds %q", core.ErrWrongType, v)
	}
	return n, nil
}

// scripts runs the fenced lock's scripts for the engine.
type scripts struct {
	rt          *core.Runtime
	name        string
	channel     string
	tokenKey    string
	latchPrefix string
}

var _ engine.ValueScripts = (*scripts)(nil)

// Acquire runs the acquire script; an acquisition's reply carries its
// token (engine.AcquireReply.Value).
func (s *scripts) Acquire(ctx context.Context, field string, lease time.Duration) (engine.AcquireReply, error) {
	res, sync, err := s.rt.Run(ctx, acquireScript, core.RunOpts{Synced: true, NoRetry: true}, []string{s.name, s.tokenKey}, lease.Milliseconds(), field)
	if err != nil {
		return engine.AcquireReply{Sync: sync}, s.wrongType(ctx, err)
	}
	pair, _ := res.([]any)
	if len(pair) != 2 {
		return engine.AcquireReply{Sync: sync}, fmt.Errorf("script %s: unexpected reply %v", acquireScript.Name(), res)
	}
	first, _ := pair[0].(int64)
	token, _ := pair[1].(int64)
	if token == -1 {
		return engine.AcquireReply{TTL: time.Duration(first) * time.Millisecond, Sync: sync}, nil
	}
	return engine.AcquireReply{OK: true, Value: token, Sync: sync}, nil
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
	script, args := unlockScript, []any{"0", lease.Milliseconds(), field, s.rt.PublishCommand(), engine.LatchTTL(s.rt).Milliseconds()}
	if next != nil {
		script = unlockHandOffScript
		keys = append(keys, s.tokenKey)
		args = append(args, next.Field, next.Lease.Milliseconds())
	}
	res, sync, err := s.rt.Run(ctx, script, core.RunOpts{Synced: true}, keys, args...)
	r := engine.ReleaseReply{Released: engine.NotOwner, Sync: sync}
	if err != nil {
		return r, s.wrongType(ctx, err)
	}
	switch v := res.(type) {
	case nil:
		return r, nil
	case int64:
		switch {
		case v == 0:
			r.Released = engine.StillHeld
			return r, nil
		case v >= 1 && next == nil:
			r.Released, r.Heard = engine.Freed, int(v-1)
			return r, nil
		case v == 1:
			// The hand-off script's replay, or its release without a
			// token.
			r.Released = engine.Freed
			return r, nil
		}
	case []any:
		if len(v) == 2 && next != nil {
			next.Value, _ = v[1].(int64)
			r.Released = engine.Freed
			return r, nil
		}
	}
	return r, fmt.Errorf("script %s: unexpected reply %v", script.Name(), res)
}

// Count reads field's hold count on the master (0: none): a script, so
// that the read never goes to a replica.
func (s *scripts) Count(ctx context.Context, field string) (int, error) {
	n, _, err := s.CountValue(ctx, field)
	return n, err
}

func (s *scripts) CountValue(ctx context.Context, field string) (int, int64, error) {
	res, _, err := s.rt.Run(ctx, countTokenScript, core.RunOpts{}, []string{s.name, s.tokenKey}, field)
	if err != nil {
		return 0, 0, s.wrongType(ctx, err)
	}
	pair, _ := res.([]any)
	if len(pair) != 2 {
		return 0, 0, fmt.Errorf("script %s: unexpected reply %v", countTokenScript.Name(), res)
	}
	n := 0
	if v, ok := pair[0].(string); ok {
		if n, err = parseCount(v); err != nil {
			return 0, 0, err
		}
	}
	var token int64
	// Without a hold the token is not the caller's: a key in the way must
	// not fail the check of a hand-off that did not happen.
	if n > 0 && pair[1] != nil {
		if token, err = s.parseToken(pair[1]); err != nil {
			return 0, 0, err
		}
	}
	return n, token, nil
}

// parseToken reads the token key's value from a script reply.
func (s *scripts) parseToken(v any) (int64, error) {
	str, _ := v.(string)
	t, err := strconv.ParseInt(str, 10, 64)
	if err != nil || t < 0 {
		return 0, s.badToken()
	}
	return t, nil
}

func (s *scripts) badToken() error {
	return fmt.Errorf("%w: %s holds a string that is not a token counter (a non-negative integer)", core.ErrWrongType, s.tokenKey)
}

// wrongType names what is in the way when the lock's hash or its token key
// holds another type (a script's WRONGTYPE does not say which), or when the
// token key holds a string that is no counter. A refusal of another kind's
// hash already says what it holds.
func (s *scripts) wrongType(ctx context.Context, err error) error {
	if err == nil || core.IsKindError(err) {
		return err
	}
	if strings.Contains(err.Error(), badTokenMarker) {
		return s.badToken()
	}
	if !errors.Is(err, core.ErrWrongType) && !errors.Is(core.WrapRedisError("", err), core.ErrWrongType) {
		return err
	}
	tctx, cancel := s.rt.ForRelease(ctx)
	defer cancel()
	for _, k := range []struct{ key, want string }{{s.name, "hash"}, {s.tokenKey, "string"}} {
		typ, terr := conns.Bounded(tctx, func(ctx context.Context) (string, error) {
			return s.rt.Redis().Type(ctx, k.key).Result()
		})
		if terr == nil && typ != "none" && typ != k.want {
			return fmt.Errorf("%w: %s holds a %s, not a %s", core.ErrWrongType, k.key, typ, k.want)
		}
	}
	return err
}
