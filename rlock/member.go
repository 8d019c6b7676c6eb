package rlock

import (
	"context"
	"time"

	"github.com/goredisson/redisson/lockable"
)

// The lock as a member of a multi-lock (package multilock): *Lock
// implements lockable.Lock.
var _ lockable.Lock = (*Lock)(nil)

// LockID identifies the lock among the members of a multi-lock: its kind,
// its client's id and its name (lockable.Lock).
func (l *Lock) LockID() string { return "lock\x00" + l.rt.ID() + "\x00" + l.name }

// ClientID returns the id of the lock's client (lockable.Lock).
func (l *Lock) ClientID() string { return l.rt.ID() }

// TryAcquire takes the lock for a multi-lock as TryLock does, with r's
// owner, wait and lease (lockable.Lock). Call TryLock yourself otherwise.
func (l *Lock) TryAcquire(ctx context.Context, r lockable.Request) (lockable.Hold, bool, error) {
	opts := []Option{WithOwner(r.Owner), memberTry}
	if r.Wait != 0 {
		opts = append(opts, WithWait(r.Wait))
	}
	if r.Lease != 0 {
		opts = append(opts, WithLease(r.Lease))
	}
	h, ok, err := l.TryLock(ctx, opts...)
	if !ok {
		return nil, false, err
	}
	return &member{Hold: h}, true, nil
}

// member is a hold taken through TryAcquire.
type member struct{ *Hold }

// Expire implements lockable.Hold: the hash alone gets the lease, while
// this owner holds it (the engine's Hold.Expire).
func (m *member) Expire(ctx context.Context, lease time.Duration) error {
	return m.h.Expire(ctx, lease)
}

// memberTry makes a member's wait end with its first try that fails for a
// reason that may pass, instead of riding it out (Options.Retry): the
// multi-lock retries the set itself, and a RedLock must move on to the next
// server rather than spend its share of the wait on a dead one.
func memberTry(o *acquireOptions) { o.noRetry = true }
