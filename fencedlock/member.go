package fencedlock

import (
	"context"

	"github.com/goredisson/redisson/internal/lockkit"
	"github.com/goredisson/redisson/lockable"
)

// The fenced lock as a member of a multi-lock (package multilock), as
// Redisson's RedissonMultiLock takes any RLock: *Lock implements
// lockable.Lock. Each acquisition through the multi-lock issues a token as
// usual; the multi-lock's hold does not carry it (read it with Token).
var _ lockable.Lock = (*Lock)(nil)

// LockID identifies the lock among the members of a multi-lock
// (lockable.Lock). It is the RLock's id for the same name and client: both
// are the same hash, so a set naming it as both is a set naming one lock
// twice.
func (l *Lock) LockID() string { return "lock\x00" + l.rt.ID() + "\x00" + l.name }

// ClientID returns the id of the lock's client (lockable.Lock).
func (l *Lock) ClientID() string { return l.rt.ID() }

// TryAcquire takes the lock for a multi-lock as TryLock does, with r's
// owner, wait and lease (lockable.Lock). Call TryLock yourself otherwise.
//
// A multi-lock that sets its members' final lease gives the hash alone the
// lease, while this owner holds it: Redisson's fenced lock also PEXPIREs
// the token key, which must keep no TTL (tokens would start over at 1 once
// it ran out).
func (l *Lock) TryAcquire(ctx context.Context, r lockable.Request) (lockable.Hold, bool, error) {
	return lockkit.TryMember(ctx, l.l, r, lockkit.Rules{}, nil)
}
