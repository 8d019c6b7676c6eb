package rwlock

import (
	"context"
	"time"

	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/internal/engine"
	"github.com/goredisson/redisson/internal/lockkit"
	"github.com/goredisson/redisson/internal/lua"
	"github.com/goredisson/redisson/lockable"
)

// The read or write lock as a member of a multi-lock (package multilock):
// *Lock implements lockable.Lock.
var _ lockable.Lock = (*Lock)(nil)

// LockID identifies the lock among the members of a multi-lock: read or
// write, its client's id and its name (lockable.Lock).
func (l *Lock) LockID() string {
	kind := "read lock"
	if l.s.write {
		kind = "write lock"
	}
	return kind + "\x00" + l.rt.ID() + "\x00" + l.s.name
}

// ClientID returns the id of the lock's client (lockable.Lock).
func (l *Lock) ClientID() string { return l.rt.ID() }

// TryAcquire takes the lock for a multi-lock as TryLock does, with r's
// owner, wait and lease (lockable.Lock). Call TryLock yourself otherwise.
func (l *Lock) TryAcquire(ctx context.Context, r lockable.Request) (lockable.Hold, bool, error) {
	// The member's Expire is the engine's, which sends the object's
	// extend script (scripts.Extend).
	return lockkit.TryMember(ctx, l.l, r, l.rules, nil)
}

// expireScript sets the lease of a read or write hold the owner has: a
// hold's Extend, and a multi-lock's final lease (Redisson's expireAsync
// after tryLock(wait, lease), which PEXPIREs the whole hash). The hash is
// shared: other readers, and the owner's hold in the other mode (a
// writer's own reads, a reader's write), live in it under other fields,
// with their own leases, which a PEXPIRE to this lease would cut short
// unsignalled (another writer would get in while they hold). So the hash
// is set to the longest of the lease and what the other fields need,
// computed as the read unlock computes it: the PTTLs of their timeout
// keys, and, for a read hold of the writer, the hash's own TTL (the write
// hold's lease). The owner's own timeout keys (read hold) are set to the
// lease, so that another reader's unlock, which sets the hash to the
// longest timeout key left, does not cut it; the owner's holds of the same
// field share one lease locally, which the engine re-times.
// KEYS: [name, key prefix "{name}"]. ARGV: [lease ms, owner field (with
// ":write" for the write lock), "1" for the write lock else "0"].
// Reply: 1 = set, 0 = the owner holds the lock no more.
var expireScript = core.NewScript("rwlock.expire", lua.MustText(luaFiles, "lua/expire.lua"))

// Extend sets the lease of field's hold with expireScript
// (engine.ExtendScripts): a read hold's timeout keys get the lease too, and
// the hash never less than its other holders need.
func (s *scripts) Extend(ctx context.Context, field string, lease time.Duration) (engine.ExtendReply, error) {
	write := "0"
	if s.write {
		write = "1"
	}
	res, sync, err := s.rt.Run(ctx, expireScript, core.RunOpts{Synced: true, NoRetry: true}, []string{s.name, core.Tagged(s.name)}, lease.Milliseconds(), field, write)
	if err != nil {
		return engine.ExtendReply{Sync: sync}, s.wrongType(ctx, err)
	}
	return engine.ExtendReply{Held: res == int64(1), Sync: sync}, nil
}
