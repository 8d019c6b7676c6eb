package redisson

import (
	"github.com/goredisson/redisson/errs"
	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/internal/hub"
)

// Sentinel errors of every object; check them with errors.Is.
var (
	// ErrNotOwner: the caller does not hold the lock it tried to release
	// (Redisson's IllegalMonitorStateException). Nothing was changed.
	ErrNotOwner = core.ErrNotOwner
	// ErrLockLost is the cause (context.Cause) of a holder's context when
	// ownership ended without an unlock: the key was deleted, force-unlocked
	// or taken by another owner, or a watchdog lease ran out before it could
	// be renewed.
	ErrLockLost = core.ErrLockLost
	// ErrLeaseExpired is the cause of a holder's context when a fixed lease
	// (a TryLock with a lease, or a hold Extend fixed) ran out: the hold
	// ended as the caller asked, which is not a loss (it does not match
	// ErrLockLost). Unlock after it returns this cause.
	ErrLeaseExpired = core.ErrLeaseExpired
	// ErrClosed is returned by calls on a closed Client; it is also the cause
	// of holders' contexts when the Client closes.
	ErrClosed = core.ErrClosed
	// ErrInvalidName is returned for an empty object name, and for a name
	// whose derived keys or channels a Redis Cluster would put in another
	// slot than the name ("x}y", "x{", "a{}b"; docs/interop.md, "Names"),
	// on every deployment.
	ErrInvalidName = core.ErrInvalidName
	// ErrInvalidArgument is returned for durations or counts that make no
	// sense, such as a zero or negative lease.
	ErrInvalidArgument = core.ErrInvalidArgument
	// ErrWrongType is returned when an object's key holds another Redis type,
	// a value the object cannot read (an atomic long on a string that is not
	// a number), or another kind of object (a read-write lock on a plain
	// lock's hash; docs/interop.md, deviation 13): nothing is written then.
	ErrWrongType = core.ErrWrongType
	// ErrNoSyncedReplicas is returned when replica sync is on and no replica
	// acknowledged a lock write in time; an acquire is undone first.
	ErrNoSyncedReplicas = core.ErrNoSyncedReplicas
	// ErrUpgrade is returned when an owner holding a read lock asks for the
	// write lock of the same read-write lock: Redisson would deadlock.
	ErrUpgrade = core.ErrUpgrade
	// ErrNonReentrant is returned when the owner that holds a non-reentrant
	// lock (NonReentrantLock, NonReentrantFairLock) asks for it again,
	// where Redisson throws IllegalMonitorStateException; nothing changes.
	ErrNonReentrant = core.ErrNonReentrant
	// ErrNoPermission is wrapped by an error whose cause is Redis' NOPERM
	// reply: the ACL user may not use a key, channel or command the call
	// needs (docs/acl.md lists them per object). Nothing the refused command
	// would have changed was changed.
	ErrNoPermission = core.ErrNoPermission
	// ErrReleaseRefused is matched by the error of an Unlock that Redis
	// refused before its script ran (OOM, NOPERM, READONLY, CROSSSLOT,
	// LOADING, ...): the hold is still held and still renewed, and the same
	// Unlock works once Redis accepts it. Only a lost reply leaves a
	// release's outcome unknown (the hold then ends; docs/failures.md).
	ErrReleaseRefused = core.ErrReleaseRefused
	// ErrSubscriptionTimeout is wrapped by a wait's error when Redis did not
	// confirm its subscription within 7.5 s (Redisson's subscriptionTimeout);
	// the subscription connection is replaced, and nothing of the wait is
	// left behind.
	ErrSubscriptionTimeout = hub.ErrNotConfirmed
)

// ObjectError is the error every call of an object returns:
// `<kind> "<name>": <op>: <cause>`. Get it with errors.As to read the kind,
// name and operation; Unwrap gives the cause, which the sentinels above
// match with errors.Is.
type ObjectError = errs.ObjectError
