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
	"fmt"
	"time"

	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/internal/engine"
	"github.com/goredisson/redisson/internal/handle"
)

// Hold is one acquisition of a lock. Keep it: Unlock releases exactly this
// hold, once. It is safe for concurrent use.
//
// Its Done channel (and Context) is closed when the hold ends: after its
// Unlock; with Err reporting ErrLeaseExpired when a fixed lease ran out, or
// ErrLockLost when ownership was lost (the lease could not be renewed, the
// key vanished or was force-unlocked), before the lease can have run out in
// Redis; with ErrClosed when the client closes.
// The context given to Lock only bounds the wait.
type Hold handle.Hold

// Unlock releases this hold. The owner's last hold frees the lock and wakes
// a waiter, or, where the kind allows it, hands the lock straight to a
// waiter of this client (each kind's package says whom it wakes). It works
// with a done ctx: the release runs on its own context bounded by the
// client's Timeout. A second Unlock of the same hold sends nothing and
// returns an error wrapping ErrNotOwner; so does an Unlock after Redis lost
// the hold (the lease ran out unseen); a hold that ended returns why
// (ErrLockLost, ErrClosed) and sends nothing.
func (h *Hold) Unlock(ctx context.Context) error { return h.engine().Unlock(ctx) }

// Extend sets the lock's lease to lease, counted from now (redislock's
// Refresh, redsync's Extend, Redisson's expire on a held lock): in Redis,
// by one script that sets it only while this hold's owner holds the lock,
// sent with replica sync as the acquire was; and in the hold's loss
// signal, which from then on fires before the new lease can have run out,
// by this process's clock. A longer lease keeps the hold past its old end,
// a shorter one ends it sooner.
//
// A watchdog hold becomes a fixed-lease hold for good: renewal stops as
// the call begins, before anything is sent, and is not resumed even when
// Extend fails. The owner's re-entrant holds of the lock share one lease:
// Extend sets it for all of them (a later re-entry sets it again, with its
// own lease or the watchdog). A read hold's timeout keys get the lease
// too, and the read-write lock's hash never less than its other holders
// need; a fair lock's queue and waiters are left as they are; a fenced
// lock's token counter keeps no TTL; a group multi-lock sets the expiry of
// each of its values.
//
// Nothing is sent, and the error says why, for a lease below 1ms
// (ErrInvalidArgument), for a hold that ended (ErrNotOwner after Unlock,
// as for a second Unlock; the loss, ErrLockLost, or ErrClosed otherwise)
// and for a ctx that is done already (its cause; the hold is unchanged). When Redis answers that the owner holds the lock no more, the
// hold ends with ErrLockLost (Done is closed) and Extend returns an error
// wrapping ErrLockLost.
//
// Any other failure leaves the hold alive as a fixed-lease hold whose end
// is the earlier of its end before the call and now + lease: the only end
// that is safe whether or not the new lease was set. This covers a write no
// replica acknowledged (an error wrapping ErrNoSyncedReplicas: it ran on
// the master, but a failover may bring the old lease back), a network
// error, and a reply that never came: such an extend may still run later,
// after anything sent since, so the hold never counts on more than its end
// (now + lease) again; Unlock and lock again to be rid of that bound. When
// ctx ends before the reply, Extend returns ctx's cause at once and the
// reply, when it comes, is applied as if the call had waited (the owner's
// next Lock, TryLock or Extend of the lock waits for it). Run Extend well
// before the hold's end: a hold whose loss signal fires while the reply is
// on its way ends lost, even if the lease was set in Redis, where it then
// lives, unused, until it runs out.
func (h *Hold) Extend(ctx context.Context, lease time.Duration) error {
	return h.engine().Extend(ctx, lease)
}

// Done is closed when the hold ends: after Unlock, or when ownership is lost
// or the client closes (see Err). A lost hold's Done is closed before its
// lease can have run out in Redis, by this process's clock.
func (h *Hold) Done() <-chan struct{} { return h.Context().Done() }

// Err is nil while the hold lasts. Then it is context.Canceled after
// Unlock, an error wrapping ErrLockLost when ownership was lost, or
// ErrClosed when the client closed.
func (h *Hold) Err() error {
	if !h.acquired() {
		return errNotAcquired
	}
	return h.engine().Err()
}

// Context returns a context that is done when the hold ends, with Err as its
// cause (context.Cause); it carries the values of the context given to Lock,
// not its cancellation. Run the critical section under it.
func (h *Hold) Context() context.Context {
	if !h.acquired() {
		return notAcquired
	}
	return h.engine().Context()
}

// Owner returns the hold's owner id: pass it WithOwner to re-enter the lock,
// or to the lock's HoldCount and IsHeldByOwner. An RLock hold whose id was
// never read may be passed on by Unlock to a waiting goroutine of the same
// client, which takes over the id (docs/waiting.md): Owner then answers 0.
// Reading the id first keeps Unlock from passing it on.
func (h *Hold) Owner() int64 {
	if !h.acquired() {
		return 0
	}
	return h.engine().Owner()
}

// Name returns the lock's name (its Redis key; a group multi-lock's group).
func (h *Hold) Name() string {
	if !h.acquired() {
		return ""
	}
	return h.engine().Key()
}

// engine returns the engine's hold, nil for a nil Hold (whose Unlock and
// Extend then return an error wrapping ErrNotOwner).
func (h *Hold) engine() *engine.Hold { return (*handle.Hold)(h).Engine() }

// acquired reports whether h came from an acquisition: a nil or zero Hold
// (a TryLock's nil when it did not acquire, or new(Hold)) did not.
func (h *Hold) acquired() bool { return h != nil && h.engine().Lock() != nil }

// errNotAcquired is the Err of a nil or zero Hold.
var errNotAcquired = fmt.Errorf("%w: not an acquired hold (a nil or zero Hold)", core.ErrNotOwner)

// notAcquired is the Context of a nil or zero Hold: done, with
// errNotAcquired as its cause.
var notAcquired = func() context.Context {
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(errNotAcquired)
	return ctx
}()

// Option changes one Lock or TryLock call of a lock kind, or of a
// multilock.Lock. A value the call cannot use is refused with an error
// wrapping ErrInvalidArgument before anything is sent: a lease below 1ms, a
// negative wait, WithWait on Lock, an owner id that is not positive.
type Option func(*options)

// options is an alias, not a type of this package, so that the lock kinds
// (internal/lockkit) can apply a []Option themselves.
type options = handle.LockOptions

// WithLease holds the lock for a fixed lease, without the watchdog: it
// expires lease after the acquire unless unlocked before. lease must be at
// least 1ms. Without WithLease the watchdog keeps the lock until Unlock.
func WithLease(lease time.Duration) Option {
	return func(o *options) { o.Lease, o.HasLease = lease, true }
}

// WithWait bounds how long TryLock waits for the lock: 0 tries once (the
// default), a positive wait keeps trying until it runs out (or ctx is done).
// A negative wait is an error, and so is WithWait on Lock, which waits until
// ctx is done.
func WithWait(wait time.Duration) Option {
	return func(o *options) { o.Wait, o.HasWait = wait, true }
}

// WithOwner acquires for owner (a Java thread's id, a positive number such
// as a Hold's Owner): an owner that holds the lock re-enters it, and its
// field is "<client id>:<owner>". Without WithOwner every acquisition gets a
// fresh owner, so that two acquisitions exclude each other like sync.Mutex.
// Goroutines sharing an owner must not lock the same lock at the same time
// (one Java thread cannot either).
func WithOwner(owner int64) Option {
	return func(o *options) { o.Owner, o.HasOwner = owner, true }
}
