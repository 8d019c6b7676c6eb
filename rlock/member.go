package rlock

import (
	"context"
	"fmt"
	"time"

	"github.com/goredisson/redisson/internal/core"
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
	opts := []Option{WithOwner(r.Owner)}
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
	return &member{Hold: h, l: l}, true, nil
}

// member is a hold taken through TryAcquire.
type member struct {
	*Hold
	l *Lock
}

// expireScript sets the lease of a lock the owner holds (Redisson's
// expireAsync, which PEXPIREs without the check).
// KEYS: [name]. ARGV: [lease ms, owner field].
// Reply: 1 = set, 0 = the owner holds the lock no more.
var expireScript = core.NewScript("rlock.expire", `
if redis.call('hexists', KEYS[1], ARGV[2]) == 1 then
	redis.call('pexpire', KEYS[1], ARGV[1])
	return 1
end
return 0
`)

// Expire implements lockable.Hold.
func (m *member) Expire(ctx context.Context, lease time.Duration) error {
	if lease < time.Millisecond {
		return m.l.l.Err("expire", fmt.Errorf("%w: the lease must be at least 1ms, got %v", core.ErrInvalidArgument, lease))
	}
	if err := m.Err(); err != nil {
		return m.l.l.Err("expire", err)
	}
	field := m.h.OwnerField()
	start := time.Now()
	res, err := m.l.rt.EvalSyncedChecked(ctx, expireScript, []string{m.l.name}, lease.Milliseconds(), field)
	if err != nil {
		return m.l.l.Err("expire", err)
	}
	if res != int64(1) || !m.l.rt.Extended(m.l.name, field, start, lease) {
		return m.l.l.Err("expire", fmt.Errorf("%w: %q is held by this owner no more", core.ErrLockLost, m.l.name))
	}
	return nil
}
