// Package lockable is the contract between lock objects and the types that
// compose them, such as package multilock's MultiLock and RedLock.
//
// A multi-lock takes several locks as one owner (Redisson's thread id), each
// with its own wait and lease, and needs nothing else from them than what
// this package names. *rlock.Lock, *fairlock.Lock, *fencedlock.Lock and
// the read and write *rwlock.Lock implement Lock; so may any other
// lock-like object, which then composes with them. Users of those objects
// never need this package directly: pass the objects to multilock.New or
// multilock.NewRedLock. (The hold and the options users see are package
// locks'.)
package lockable

import (
	"context"
	"time"
)

// Lock is one lock a multi-lock can take.
type Lock interface {
	// Name returns the lock's name (its Redis key), for errors.
	Name() string
	// LockID identifies the lock among the members of one multi-lock: two
	// handles of the same lock of the same client (same kind, same name)
	// have the same id, so that a set naming one lock twice is refused.
	LockID() string
	// ClientID returns the id of the client the lock belongs to (the UUID
	// of its owner fields). A multi-lock releases the members of one client
	// one after another, in the set's order, as Redisson's unlock() does,
	// so that the unlock messages come in that order; members of different
	// clients are released in parallel.
	ClientID() string
	// TryAcquire takes the lock for r.Owner as the object's TryLock does:
	// once when r.Wait is 0, else waiting up to r.Wait (or until ctx is
	// done, which is an error); with the watchdog when r.Lease is 0, else
	// for the fixed lease r.Lease. It reports false with a nil error when
	// the lock was not acquired in time. A try that fails ends the wait
	// with its error, even one that may pass (a failover), which the
	// object's own waits ride out: the multi-lock retries the set, and a
	// RedLock moves on to the next server.
	TryAcquire(ctx context.Context, r Request) (Hold, bool, error)
}

// Request is one acquisition of a member lock.
type Request struct {
	// Owner is the owner id (a Java thread's id), positive: every member
	// of a multi-lock is taken by the same owner, and an owner that holds
	// a member already re-enters it.
	Owner int64
	// Wait bounds the wait: 0 tries once.
	Wait time.Duration
	// Lease is a fixed lease (at least 1ms); 0 means the watchdog's.
	Lease time.Duration
}

// Hold is one acquisition of a member lock.
type Hold interface {
	// Unlock releases this hold, once (see the object's Hold.Unlock).
	Unlock(ctx context.Context) error
	// Done is closed when the hold ends: after Unlock, when ownership is
	// lost (before the lease can have run out in Redis) or when the
	// object's client closes.
	Done() <-chan struct{}
	// Err is nil while the hold lasts, then why it ended.
	Err() error
	// Context is done when the hold ends, with Err as its cause.
	Context() context.Context
	// Expire sets the hold's lease to lease, counted from now, in Redis
	// (PEXPIRE, if the owner still holds the lock) and in the hold's own
	// expiry signal, as Hold.Extend does (a watchdog hold becomes a fixed
	// lease). A multi-lock that took its
	// members with a provisional lease sets the final one this way
	// (Redisson's expireAsync after tryLock(wait, lease)). It fails with an
	// error wrapping ErrLockLost when the owner holds the lock no more.
	Expire(ctx context.Context, lease time.Duration) error
}
