package core

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// Sentinel errors shared by every object. The root package re-exports them, so
// callers check them with errors.Is against redisson.ErrNotOwner and friends.
var (
	// ErrNotOwner is returned when an owner releases or inspects a lock it does
	// not hold: Redisson's IllegalMonitorStateException.
	ErrNotOwner = errors.New("redisson: lock is not held by this owner")
	// ErrLockLost is the cause of a holder's context when ownership ended
	// without an unlock: the key vanished, or the lease ran out.
	ErrLockLost = errors.New("redisson: lock ownership lost")
	// ErrClosed is returned by every call on a closed Client.
	ErrClosed = errors.New("redisson: client is closed")
	// ErrInvalidName is returned for an empty object name.
	ErrInvalidName = errors.New("redisson: invalid object name")
	// ErrInvalidArgument is returned for a duration or count that makes no sense.
	ErrInvalidArgument = errors.New("redisson: invalid argument")
	// ErrWrongType is returned when the object's key holds a value of another
	// Redis type (WRONGTYPE).
	ErrWrongType = errors.New("redisson: key holds a value of the wrong type")
	// ErrNoSyncedReplicas is returned when replica sync is on and no replica
	// acknowledged a lock write within the sync timeout (Redisson's
	// NoSyncedSlavesException).
	ErrNoSyncedReplicas = errors.New("redisson: no replica acknowledged the write")
	// ErrUpgrade is returned when a read holder asks for the write lock of
	// the same read-write lock with the same owner: Redisson would wait for
	// itself forever.
	ErrUpgrade = errors.New("redisson: a read holder cannot take the write lock (no upgrade)")
)

// WrongTypeError says what key holds instead of the Redis type want, for a
// command that failed with WRONGTYPE: the user learns what is in the way,
// not which script tripped over it.
func WrongTypeError(ctx context.Context, rdb redis.UniversalClient, key, want string) error {
	tctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
	defer cancel()
	typ, err := Bounded(tctx, func(ctx context.Context) (string, error) {
		return rdb.Type(ctx, key).Result()
	})
	if err != nil || typ == "" || typ == "none" {
		return fmt.Errorf("%w: the key holds another type than a %s", ErrWrongType, want)
	}
	return fmt.Errorf("%w: the key holds a %s, not a %s", ErrWrongType, typ, want)
}
