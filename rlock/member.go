package rlock

import (
	"context"

	"github.com/goredisson/redisson/internal/lockkit"
	"github.com/goredisson/redisson/lockable"
)

// The lock as a member of a multi-lock (package multilock): *Lock
// implements lockable.Lock.
var _ lockable.Lock = (*Lock)(nil)

// LockID identifies the lock among the members of a multi-lock: its kind,
// its client's id and its name (lockable.Lock).
func (l *Lock) LockID() string { return l.kind + "\x00" + l.rt.ID() + "\x00" + l.name }

// ClientID returns the id of the lock's client (lockable.Lock).
func (l *Lock) ClientID() string { return l.rt.ID() }

// TryAcquire takes the lock for a multi-lock as TryLock does, with r's
// owner, wait and lease (lockable.Lock). Call TryLock yourself otherwise.
func (l *Lock) TryAcquire(ctx context.Context, r lockable.Request) (lockable.Hold, bool, error) {
	return lockkit.TryMember(ctx, l.l, r, lockkit.Rules{}, nil)
}
