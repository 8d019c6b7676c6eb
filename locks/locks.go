// Package locks is what the lock kinds share: the Hold that Lock and TryLock
// return, and the Options of one acquisition.
//
// Packages rlock, fairlock, fencedlock and rwlock, and the group
// multi-lock of package multilock, return a *Hold (rlock.Hold,
// fairlock.Hold, rwlock.Hold and multilock.GroupHold are this type;
// fencedlock.Hold embeds it and adds the fencing token). They, and
// multilock's MultiLock and RedLock, take WithLease, WithWait and WithOwner,
// which each of those packages also offers under its own name:
// rlock.WithLease(d) and locks.WithLease(d) are the same option. Code that
// works with any lock kind can take a *Hold and []Option.
//
// The options are the lock kinds' alone: a semaphore's, a latch's and a rate
// limiter's are types of their own, so that an option an object does not
// understand does not compile. Among the lock kinds, every acquisition
// understands every option, except that Lock, which waits until its ctx is
// done, refuses WithWait with an error wrapping ErrInvalidArgument.
package locks

import (
	"context"
	"time"

	"github.com/goredisson/redisson/internal/engine"
	"github.com/goredisson/redisson/internal/objects"
)

func init() {
	objects.ApplyLockOptions = func(opts any) objects.LockOptions {
		var o options
		for _, opt := range opts.([]Option) {
			opt(&o)
		}
		return objects.LockOptions{
			Lease: o.lease, Wait: o.wait, Owner: o.owner,
			HasLease: o.hasLease, HasWait: o.hasWait, HasOwner: o.hasOwner,
		}
	}
	objects.LockHold = func(h any) *engine.Hold { return &h.(*Hold).h }
}

// Hold is one acquisition of a lock. Keep it: Unlock releases exactly this
// hold, once. It is safe for concurrent use.
//
// Its Done channel (and Context) is closed when the hold ends: after its
// Unlock; with Err reporting ErrLockLost when ownership was lost (the lease
// could not be renewed, the key vanished or was force-unlocked), before the
// lease can have run out in Redis; with ErrClosed when the client closes.
// The context given to Lock only bounds the wait.
type Hold struct {
	h engine.Hold
}

// Unlock releases this hold. The owner's last hold frees the lock and wakes
// a waiter, or, where the kind allows it, hands the lock straight to a
// waiter of this client (each kind's package says whom it wakes). It works
// with a done ctx: the release runs on its own context bounded by the
// client's Timeout. A second Unlock of the same hold sends nothing and
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
// or to the lock's HoldCount and IsHeldByOwner.
func (h *Hold) Owner() int64 { return h.h.Owner() }

// Name returns the lock's name (its Redis key; a group multi-lock's group).
func (h *Hold) Name() string { return h.h.Key() }

// Option changes one Lock or TryLock call of a lock kind, or of a
// multilock.Lock. A value the call cannot use is refused with an error
// wrapping ErrInvalidArgument before anything is sent: a lease below 1ms, a
// negative wait, WithWait on Lock, an owner id that is not positive.
type Option func(*options)

type options struct {
	lease, wait                 time.Duration
	owner                       int64
	hasLease, hasWait, hasOwner bool
}

// WithLease holds the lock for a fixed lease, without the watchdog: it
// expires lease after the acquire unless unlocked before. lease must be at
// least 1ms. Without WithLease the watchdog keeps the lock until Unlock.
func WithLease(lease time.Duration) Option {
	return func(o *options) { o.lease, o.hasLease = lease, true }
}

// WithWait bounds how long TryLock waits for the lock: 0 tries once (the
// default), a positive wait keeps trying until it runs out (or ctx is done).
// A negative wait is an error, and so is WithWait on Lock, which waits until
// ctx is done.
func WithWait(wait time.Duration) Option {
	return func(o *options) { o.wait, o.hasWait = wait, true }
}

// WithOwner acquires for owner (a Java thread's id, a positive number such
// as a Hold's Owner): an owner that holds the lock re-enters it, and its
// field is "<client id>:<owner>". Without WithOwner every acquisition gets a
// fresh owner, so that two acquisitions exclude each other like sync.Mutex.
// Goroutines sharing an owner must not lock the same lock at the same time
// (one Java thread cannot either).
func WithOwner(owner int64) Option {
	return func(o *options) { o.owner, o.hasOwner = owner, true }
}
