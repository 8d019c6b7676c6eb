package fairlock

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/internal/lockkit"
	"github.com/goredisson/redisson/source"
)

// NonReentrantLock is Redisson's RedissonNonReentrantFairLock (Redisson
// 4.x, getNonReentrantFairLock): the fair lock's keys, queue, channels and
// unlock, but the owner that holds it cannot take it again. Its Lock and
// TryLock fail at once with ErrNonReentrant when the owner given WithOwner
// holds the lock (Java throws IllegalMonitorStateException), and change
// nothing (nothing is sent when it holds it through this client, or is
// acquiring it there); another owner queues or fails as for any fair
// lock. Its other methods are Lock's. Get one from NewNonReentrant or
// (*redisson.Client).NonReentrantFairLock.
type NonReentrantLock struct{ base }

// base is Lock under a name that leaves NonReentrantLock free to name its
// own Lock method.
type base = Lock

// reentryReply is the error reply Redisson's scripts are given to refuse a
// second acquisition by the holder.
const reentryReply = "NON_REENTRANT_REACQUIRE"

// NewNonReentrant returns the non-reentrant fair lock called name of src's
// client. It panics for a nil or zero src.
func NewNonReentrant(src *source.Source, name string) *NonReentrantLock {
	l := new(NonReentrantLock)
	l.init(src, "fairlock.NewNonReentrant", "non-reentrant fair lock", name,
		nonReentrantTryOnceScript, nonReentrantWaitingScript, reentryReply)
	return l
}

// Lock queues for the lock and waits for its turn, as Lock.Lock does;
// ErrNonReentrant when the owner holds it already.
func (l *NonReentrantLock) Lock(ctx context.Context, opts ...Option) (*Hold, error) {
	return lockkit.Lock(ctx, l.l, new(Hold), opts, rules)
}

// TryLock tries once, or, WithWait, queues and waits, as Lock.TryLock
// does; ErrNonReentrant when the owner holds it already.
func (l *NonReentrantLock) TryLock(ctx context.Context, opts ...Option) (*Hold, bool, error) {
	return lockkit.TryLock(ctx, l.l, new(Hold), opts, rules)
}

// reentryErr turns an acquire script's refusal of a second acquisition
// into ErrNonReentrant; other errors pass unchanged.
func reentryErr(err error, field string) error {
	var rerr redis.Error
	if errors.As(err, &rerr) && strings.Contains(rerr.Error(), reentryReply) {
		return core.Final(fmt.Errorf("%w: owner field %s holds it", core.ErrNonReentrant, field))
	}
	return err
}
