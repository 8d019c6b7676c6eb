// Package lockkit is the part of the lock kinds (packages rlock, fairlock,
// fencedlock, rwlock and multilock) that they share besides package locks'
// Hold and Option: the checks of an acquisition's options, and the bodies
// of Lock, TryLock and a multi-lock member's TryAcquire. A fix to any of
// them is made here once.
package lockkit

import (
	"context"
	"fmt"
	"time"

	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/internal/engine"
	"github.com/goredisson/redisson/internal/handle"
	"github.com/goredisson/redisson/lockable"
	"github.com/goredisson/redisson/locks"
)

// Options are one acquisition's options, read out of []locks.Option.
type Options = handle.LockOptions

// Rules are what a kind checks beyond what every kind checks.
type Rules struct {
	// WholeMSWait refuses a positive wait below 1ms: the fair lock's wait
	// is also its queue's stale interval, counted in whole ms.
	WholeMSWait bool
	// Check, when set, runs once the shared checks passed; waits says
	// whether the acquisition waits (Lock, or a TryLock with a positive
	// wait). The write lock refuses an owner that reads (ErrUpgrade).
	Check func(o Options, waits bool) error
}

// Apply reads opts.
func Apply(opts []locks.Option) Options {
	// An option is a func the compiler cannot see into, so what it is given
	// lives on the heap: only calls with options pay for that.
	if len(opts) == 0 {
		return Options{}
	}
	o := new(Options)
	for _, opt := range opts {
		opt(o)
	}
	return *o
}

// Engine returns the engine hold inside h.
func Engine(h *locks.Hold) *engine.Hold { return (*handle.Hold)(h).Engine() }

// Parse reads opts for Lock (lock) or TryLock and checks them.
func Parse(lock bool, opts []locks.Option, rules Rules) (Options, error) {
	o := Apply(opts)
	return o, check(lock, o, rules)
}

func check(lock bool, o Options, rules Rules) error {
	switch {
	case o.HasLease && o.Lease < time.Millisecond:
		return fmt.Errorf("%w: the lease must be at least 1ms, got %v (leave WithLease out for the watchdog)", core.ErrInvalidArgument, o.Lease)
	case o.HasWait && lock:
		return fmt.Errorf("%w: Lock waits until ctx is done; bound the wait with ctx, or use TryLock with WithWait", core.ErrInvalidArgument)
	case o.HasWait && o.Wait < 0:
		return fmt.Errorf("%w: the wait must not be negative, got %v", core.ErrInvalidArgument, o.Wait)
	case rules.WholeMSWait && o.HasWait && o.Wait > 0 && o.Wait < time.Millisecond:
		return fmt.Errorf("%w: a wait must be 0 or at least 1ms, got %v", core.ErrInvalidArgument, o.Wait)
	case o.HasOwner && o.Owner <= 0:
		return fmt.Errorf("%w: the owner id must be positive, got %d", core.ErrInvalidArgument, o.Owner)
	}
	if rules.Check != nil {
		return rules.Check(o, lock || o.Wait > 0)
	}
	return nil
}

// request checks o and returns the engine's request for Lock (lock) or
// TryLock, or the error naming l and op.
func request(l *engine.Lock, op string, lock bool, o Options, rules Rules) (engine.Request, error) {
	if err := check(lock, o, rules); err != nil {
		return engine.Request{}, l.Err(op, err)
	}
	r := engine.Request{Owner: o.Owner, Lease: o.Lease, Wait: lock}
	if !lock && o.Wait > 0 {
		r.Wait, r.WaitFor = true, o.Wait
	}
	return r, nil
}

// Lock is a kind's Lock: it acquires l into h, waiting until ctx is done,
// and returns h, or nil and the error.
func Lock(ctx context.Context, l *engine.Lock, h *locks.Hold, opts []locks.Option, rules Rules) (*locks.Hold, error) {
	r, err := request(l, "lock", true, Apply(opts), rules)
	if err != nil {
		return nil, err
	}
	ok, err := l.Acquire(ctx, Engine(h), r)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, l.Err("lock", context.Cause(ctx))
	}
	return h, nil
}

// TryLock is a kind's TryLock: it acquires l into h once, or within the
// wait, and returns h and true; nil and false when the lock was not
// acquired in time (a nil error) or on an error.
func TryLock(ctx context.Context, l *engine.Lock, h *locks.Hold, opts []locks.Option, rules Rules) (*locks.Hold, bool, error) {
	r, err := request(l, "try lock", false, Apply(opts), rules)
	if err != nil {
		return nil, false, err
	}
	ok, err := l.Acquire(ctx, Engine(h), r)
	if err != nil || !ok {
		return nil, false, err
	}
	return h, true, nil
}

// Expire sets the lease of a member hold (lockable.Hold's Expire); nil
// means the engine's, which PEXPIREs the lock's hash while the owner holds
// it.
type Expire func(ctx context.Context, h *engine.Hold, lease time.Duration) error

// TryMember is a kind's TryAcquire (lockable.Lock): TryLock with r's owner,
// wait and lease, checked as TryLock checks them. Its wait ends with its
// first try that fails for a reason that may pass, instead of riding it out
// (Options.Retry): the multi-lock retries the set itself, and a RedLock must
// move on to the next server rather than spend its share of the wait on a
// dead one.
func TryMember(ctx context.Context, l *engine.Lock, r lockable.Request, rules Rules, expire Expire) (lockable.Hold, bool, error) {
	o := Options{
		Owner: r.Owner, HasOwner: true,
		Wait: r.Wait, HasWait: r.Wait != 0,
		Lease: r.Lease, HasLease: r.Lease != 0,
	}
	req, err := request(l, "try lock", false, o, rules)
	if err != nil {
		return nil, false, err
	}
	req.NoRetry = true
	m := &member{expire: expire}
	ok, err := l.Acquire(ctx, &m.Hold, req)
	if err != nil || !ok {
		return nil, false, err
	}
	return m, true, nil
}

var _ lockable.Hold = (*member)(nil)

// member is a hold taken through TryMember. Nobody but the multi-lock sees
// it, so it needs no public hold around the engine's.
type member struct {
	engine.Hold
	expire Expire
}

// Expire implements lockable.Hold.
func (m *member) Expire(ctx context.Context, lease time.Duration) error {
	if m.expire == nil {
		return m.Hold.Expire(ctx, lease)
	}
	return m.expire(ctx, &m.Hold, lease)
}
