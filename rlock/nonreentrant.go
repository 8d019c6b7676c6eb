package rlock

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/internal/engine"
	"github.com/goredisson/redisson/internal/lockkit"
	"github.com/goredisson/redisson/source"
)

// NonReentrantLock is Redisson's RedissonNonReentrantLock (Redisson 4.x,
// getNonReentrantLock): the RLock hash, channel, messages and unlock, but
// the owner that holds it cannot take it again. Its Lock and TryLock fail
// at once with ErrNonReentrant when the owner given WithOwner holds the
// lock (Java throws IllegalMonitorStateException), and change nothing;
// when it holds it through this client, or another acquisition of that
// owner is under way here, nothing is even sent (docs/locks.md says why);
// another owner, of this client or another, waits or fails as for any
// lock. Its other methods are Lock's. Get one from NewNonReentrant or
// (*redisson.Client).NonReentrantLock.
type NonReentrantLock struct{ base }

// base is Lock under a name that leaves the kinds free to name their own
// Lock method: the kinds embed it.
type base = Lock

// reentryReply is the error reply Redisson's script is given to refuse a
// second acquisition by the holder.
const reentryReply = "NON_REENTRANT_REACQUIRE"

// NewNonReentrant returns the non-reentrant lock called name of src's
// client. It panics for a nil or zero src.
func NewNonReentrant(src *source.Source, name string) *NonReentrantLock {
	l := new(NonReentrantLock)
	l.init(src, "rlock.NewNonReentrant", "non-reentrant lock", name, func(s *scripts, cfg *engine.Config) {
		s.acquire, s.reentry = nonReentrantAcquireScript, reentryReply
		cfg.NonReentrant = true
	})
	return l
}

// Lock waits until the lock is acquired or ctx is done, and returns the
// hold; ErrNonReentrant when the owner holds it already. ctx only bounds
// the wait.
func (l *NonReentrantLock) Lock(ctx context.Context, opts ...Option) (*Hold, error) {
	return lockkit.Lock(ctx, l.l, new(Hold), opts, lockkit.Rules{})
}

// TryLock tries to acquire the lock once, or, WithWait, until the wait
// runs out; ErrNonReentrant when the owner holds it already.
func (l *NonReentrantLock) TryLock(ctx context.Context, opts ...Option) (*Hold, bool, error) {
	return lockkit.TryLock(ctx, l.l, new(Hold), opts, lockkit.Rules{})
}

// reentryErr turns the acquire script's refusal of a second acquisition
// into ErrNonReentrant; other errors pass unchanged.
func reentryErr(err error, field string) error {
	var rerr redis.Error
	if errors.As(err, &rerr) && strings.Contains(rerr.Error(), reentryReply) {
		return core.Final(fmt.Errorf("%w: owner field %s holds it", core.ErrNonReentrant, field))
	}
	return err
}
