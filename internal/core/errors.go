package core

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson/errs"
	"github.com/goredisson/redisson/internal/conns"
	"github.com/goredisson/redisson/internal/hub"
	"github.com/goredisson/redisson/internal/replies"
)

// Sentinel errors shared by every object. The root package re-exports them, so
// callers check them with errors.Is against redisson.ErrNotOwner and friends.
// Their texts are short phrases without a package prefix: every error a
// caller gets is an ObjectError that starts with the object's kind and name,
// so a prefix would only repeat where the error comes from.
var (
	// ErrNotOwner is returned when an owner releases or inspects a lock it does
	// not hold: Redisson's IllegalMonitorStateException.
	ErrNotOwner = errors.New("not held by this owner")
	// ErrLockLost is the cause of a holder's context when ownership ended
	// without an unlock against the holder's will: the key vanished or went
	// to another owner, or a lease meant to be renewed ran out.
	ErrLockLost = errors.New("ownership lost")
	// ErrLeaseExpired is the cause of a holder's context when a lease that
	// was not to be renewed (a fixed lease, or one an extend fixed) ran
	// out: the hold ended as asked, so it is not ErrLockLost.
	ErrLeaseExpired = errors.New("lease expired")
	// ErrClosed is returned by every call on a closed Client.
	ErrClosed = errors.New("client is closed")
	// ErrInvalidName is returned for an empty object name, and for a name
	// whose derived keys or channels a Redis Cluster would put in another
	// slot than the name (CheckName).
	ErrInvalidName = errors.New("invalid name")
	// ErrInvalidArgument is returned for a duration or count that makes no sense.
	ErrInvalidArgument = errors.New("invalid argument")
	// ErrWrongType is returned when the object's key holds a value of another
	// Redis type (WRONGTYPE).
	ErrWrongType = errors.New("wrong type")
	// ErrNoSyncedReplicas is returned when replica sync is on and no replica
	// acknowledged a lock write within the sync timeout (Redisson's
	// NoSyncedSlavesException).
	ErrNoSyncedReplicas = errors.New("no replica acknowledged the write")
	// ErrUpgrade is returned when a read holder asks for the write lock of
	// the same read-write lock with the same owner: Redisson would wait for
	// itself forever.
	ErrUpgrade = errors.New("a read holder cannot take the write lock (no upgrade)")
	// ErrNonReentrant is returned when the owner that holds a non-reentrant
	// lock asks for it again (Redisson's IllegalMonitorStateException from
	// RedissonNonReentrantLock): nothing is changed.
	ErrNonReentrant = errors.New("the owner already holds this non-reentrant lock")
	// ErrNoPermission is wrapped by every error whose cause is Redis' NOPERM
	// reply: the connection's ACL user may not use a key, a channel or a
	// command the call needs. The error names what was refused; docs/acl.md
	// lists what each object needs. It is the pub/sub hub's sentinel, so
	// that a refused subscription (which the hub reports without going
	// through this package) matches it too.
	ErrNoPermission = hub.ErrNoPermission
)

// ErrNilContext is the error of a call given a nil context.Context: it
// matches ErrInvalidArgument.
var ErrNilContext = fmt.Errorf("%w: nil context", ErrInvalidArgument)

// WrongTypeError says what key holds instead of the Redis type want, for a
// command that failed with WRONGTYPE: the user learns what is in the way,
// not which script tripped over it.
func WrongTypeError(ctx context.Context, rdb redis.UniversalClient, key, want string) error {
	tctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
	defer cancel()
	typ, err := conns.Bounded(tctx, func(ctx context.Context) (string, error) {
		return rdb.Type(ctx, key).Result()
	})
	if err != nil || typ == "" || typ == "none" {
		return fmt.Errorf("%w: the key holds another type than a %s", ErrWrongType, want)
	}
	return fmt.Errorf("%w: the key holds a %s, not a %s", ErrWrongType, typ, want)
}

// ObjectError is the error every call of an object returns; it is declared
// in the public errs package so that users and tools can name it.
type ObjectError = errs.ObjectError

// Errorf formats like fmt.Errorf (%w included) and also matches is with
// errors.Is, without is's text: the words can fit the object (a permit
// released twice is ErrNotOwner, but it does not talk about an owner).
func Errorf(is error, format string, a ...any) error {
	inner := fmt.Errorf(format, a...)
	errs := []error{is}
	switch u := inner.(type) {
	case interface{ Unwrap() error }:
		errs = append(errs, u.Unwrap())
	case interface{ Unwrap() []error }:
		errs = append(errs, u.Unwrap()...)
	}
	return &wordedError{msg: inner.Error(), errs: errs}
}

type wordedError struct {
	msg  string
	errs []error
}

func (e *wordedError) Error() string   { return e.msg }
func (e *wordedError) Unwrap() []error { return e.errs }

// ErrNilHandle is the cause of every call on a nil object handle: it
// matches ErrInvalidArgument.
var ErrNilHandle = fmt.Errorf("%w: nil handle (get one from a redisson.Client)", ErrInvalidArgument)

// NilHandle is the error of a call op on a nil handle of kind: it fails as
// a handle made wrong does, without a panic.
func NilHandle(kind, op string) error {
	return &ObjectError{Kind: kind, Op: op, Err: ErrNilHandle}
}

// NilSeq2 is the iterator of a call op on a nil handle of kind: it yields
// NilHandle's error once.
func NilSeq2[T any](kind, op string) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var zero T
		yield(zero, NilHandle(kind, op))
	}
}

// Permission returns err matching ErrNoPermission when replies.Denied says it is
// an ACL refusal, its text unchanged; any other err as it is.
func Permission(err error) error {
	if err == nil || errors.Is(err, ErrNoPermission) || !replies.Denied(err) {
		return err
	}
	return Errorf(ErrNoPermission, "%w", err)
}
