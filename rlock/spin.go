package rlock

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/internal/engine"
	"github.com/goredisson/redisson/internal/lockkit"
	"github.com/goredisson/redisson/lockable"
	"github.com/goredisson/redisson/source"
)

// SpinLock is Redisson's RedissonSpinLock (getSpinLock): the RLock hash,
// re-entrant per owner like Lock, for deployments where pub/sub is not
// allowed. It neither publishes nor subscribes: a waiter tries again after
// each sleep its BackOff gives, so a contended spin lock costs Redis a
// script per poll of every waiter, and a release is noticed only at the
// next poll. Holds, leases, the watchdog and loss are as for Lock. Get one
// from NewSpin or (*redisson.Client).SpinLock.
type SpinLock struct {
	base
	err error // a BackOff that makes no sense, reported by every acquisition
}

// BackOff paces a spin lock's waiter: the sleep before each try after the
// first (Redisson's LockOptions.BackOff). The zero value is Redisson's
// default, LockOptions.defaults(): exponential from 1ms, doubling plus a
// random jitter of up to one ms per failed try so far, at most 128ms.
type BackOff struct {
	// Constant sleeps Delay before every try (Redisson's
	// ConstantBackOff) instead of backing off exponentially.
	Constant bool
	// Delay is the constant sleep; zero: Redisson's 64ms.
	Delay time.Duration
	// InitialDelay is the first exponential sleep; zero: 1ms.
	InitialDelay time.Duration
	// MaxDelay bounds the exponential sleeps; zero: 128ms.
	MaxDelay time.Duration
	// Multiplier scales each exponential sleep; zero: 2.
	Multiplier int
}

// SpinOption changes a spin lock made by NewSpin.
type SpinOption func(*BackOff)

// WithBackOff sets how the spin lock's waiters pace their tries.
func WithBackOff(b BackOff) SpinOption { return func(to *BackOff) { *to = b } }

// NewSpin returns the spin lock called name of src's client. It panics for
// a nil or zero src. A BackOff with a negative delay or multiplier makes
// every acquisition fail with ErrInvalidArgument.
func NewSpin(src *source.Source, name string, opts ...SpinOption) *SpinLock {
	var b BackOff
	for _, o := range opts {
		o(&b)
	}
	l := &SpinLock{err: b.check()}
	l.init(src, "rlock.NewSpin", "spin lock", name, func(s *scripts, cfg *engine.Config) {
		s.acquire = spinAcquireScript
		cfg.Channel, cfg.HandOff, cfg.PassOn = "", false, false
		cfg.Poll = b.policy
		cfg.Scripts = spinScripts{s}
	})
	return l
}

func (b BackOff) check() error {
	if b.Delay < 0 || b.InitialDelay < 0 || b.MaxDelay < 0 || b.Multiplier < 0 {
		return fmt.Errorf("%w: a spin lock's back-off needs delays and a multiplier that are not negative, got %+v", core.ErrInvalidArgument, b)
	}
	return nil
}

// policy returns the sleeps of one waiting acquisition, as Redisson's
// BackOffPolicy of b counts them (in whole ms).
func (b BackOff) policy() func() time.Duration {
	if b.Constant {
		d := b.Delay
		if d == 0 {
			d = 64 * time.Millisecond
		}
		d = max(d.Truncate(time.Millisecond), time.Millisecond)
		return func() time.Duration { return d }
	}
	next, maxDelay, mult := int64(1), int64(128), int64(2)
	if b.InitialDelay > 0 {
		next = max(b.InitialDelay.Milliseconds(), 1)
	}
	if b.MaxDelay > 0 {
		maxDelay = max(b.MaxDelay.Milliseconds(), 1)
	}
	if b.Multiplier > 0 {
		mult = int64(b.Multiplier)
	}
	fails := 0
	return func() time.Duration {
		if next == maxDelay {
			return time.Duration(maxDelay) * time.Millisecond
		}
		d := next
		fails++
		next = min(maxDelay, next*mult+rand.Int64N(int64(fails)))
		return time.Duration(d) * time.Millisecond
	}
}

func (l *SpinLock) rules() lockkit.Rules {
	return lockkit.Rules{Check: func(lockkit.Options, bool) error { return l.err }}
}

// Lock waits, polling, until the lock is acquired or ctx is done, and
// returns the hold. ctx only bounds the wait.
func (l *SpinLock) Lock(ctx context.Context, opts ...Option) (*Hold, error) {
	return lockkit.Lock(ctx, l.l, new(Hold), opts, l.rules())
}

// TryLock tries to acquire the lock once, or, WithWait, polling until the
// wait runs out. It reports false (and no error) when the lock was not
// acquired in time.
func (l *SpinLock) TryLock(ctx context.Context, opts ...Option) (*Hold, bool, error) {
	return lockkit.TryLock(ctx, l.l, new(Hold), opts, l.rules())
}

// TryAcquire takes the lock for a multi-lock as TryLock does
// (lockable.Lock).
func (l *SpinLock) TryAcquire(ctx context.Context, r lockable.Request) (lockable.Hold, bool, error) {
	return lockkit.TryMember(ctx, l.l, r, l.rules(), nil)
}

// ForceUnlock deletes the lock's key whoever holds it, as Redisson's spin
// lock does (whatever the key holds: its script is Redisson's DEL), and
// reports whether there was one. Holds of this client on it end with
// ErrLockLost; waiters notice at their next poll.
func (l *SpinLock) ForceUnlock(ctx context.Context) (bool, error) {
	if err := l.l.Check(ctx); err != nil {
		return false, l.l.Err("force unlock", err)
	}
	res, _, err := l.rt.Run(ctx, spinForceUnlockScript, core.RunOpts{}, []string{l.name})
	if err != nil {
		return false, l.l.Err("force unlock", err)
	}
	deleted := res == int64(1)
	if deleted {
		l.l.Lost()
	}
	return deleted, nil
}

// spinScripts runs the spin lock's scripts for the engine: RLock's
// acquire and count, its own release (no message).
type spinScripts struct{ s *scripts }

func (p spinScripts) Acquire(ctx context.Context, field string, lease time.Duration) (engine.AcquireReply, error) {
	return p.s.Acquire(ctx, field, lease)
}

func (p spinScripts) Count(ctx context.Context, field string) (int, error) {
	return p.s.Count(ctx, field)
}

func (p spinScripts) Release(ctx context.Context, field string, lease time.Duration, reqID string, _ *engine.Successor) (engine.ReleaseReply, error) {
	s := p.s
	keys := []string{s.name, s.latchPrefix + reqID}
	res, sync, err := s.rt.Run(ctx, spinUnlockScript, core.RunOpts{Synced: true}, keys, s.leaseArg(lease), field, s.latchArg)
	if err != nil || res == nil {
		return engine.ReleaseReply{Released: engine.NotOwner, Sync: sync}, err
	}
	if n, _ := res.(int64); n >= 1 {
		return engine.ReleaseReply{Released: engine.Freed, Sync: sync}, nil
	}
	return engine.ReleaseReply{Released: engine.StillHeld, Sync: sync}, nil
}
