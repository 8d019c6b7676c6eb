package rwlock

import (
	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/internal/lua"
)

// The scripts below keep Redisson 3.52's RReadWriteLock contract (docs/protocol.md
// §7): the same KEYS and ARGV order, writes, replies and messages ("0"
// after a read release, "1" after a write release).

// readAcquireScript takes a read hold: on a free lock, on a read lock, or
// on a write lock the caller holds (downgrade). Each hold gets its own
// timeout key, whose TTL is that hold's lease. A hash without "mode" is
// another kind's (a lock's, whose holder field is the very field a reader
// of the same owner counts in), refused before anything is written: EXISTS
// takes the place of Redisson's first HGET on a free lock, so that path
// sends no call more.
// KEYS: [name, timeout prefix]. ARGV: [lease ms, owner field, owner:write].
// Reply: acquiredReply (-3; Redisson's script answers nil, which go-redis
// runs through its allocating retry checks) = acquired, else the
// lock's PTTL; the error WRONGKIND <kind> rwlock when another kind owns the
// hash.
var readAcquireScript = core.NewScript("rwlock.readAcquire", lua.MustText(luaFiles, "lua/read_acquire.lua"))

// readUnlockScript releases one read hold (its newest timeout key). With
// other holders left the hash lives as long as their longest hold; with
// none (or only expired ones) it is deleted and "0" published.
// KEYS: [name, channel, timeout prefix, key prefix, latch]. ARGV: [message
// "0", owner field, PUBLISH|SPUBLISH, latch TTL ms].
// Reply: nil = not held, 0 = still locked, 1 = freed.
var readUnlockScript = core.NewScript("rwlock.readUnlock", lua.MustText(luaFiles, "lua/read_unlock.lua"))

// writeAcquireScript takes or re-enters the write lock; re-entry adds the
// lease to the remaining TTL, as Redisson does. A hash without "mode" is
// another kind's, refused before anything is written (EXISTS in the place
// of Redisson's first HGET, as readAcquireScript).
// KEYS: [name]. ARGV: [lease ms, owner:write].
// Reply: acquiredReply (-3, as readAcquireScript) = acquired, else the
// lock's PTTL; the error WRONGKIND <kind> rwlock when another kind owns the
// hash.
var writeAcquireScript = core.NewScript("rwlock.writeAcquire", lua.MustText(luaFiles, "lua/write_acquire.lua"))

// writeUnlockScript releases one write hold. The last one deletes the lock
// and publishes "1", unless the owner still holds reads (downgrade): then
// the mode turns to read and nothing is published.
// KEYS: [name, channel, latch]. ARGV: [message "1", lease ms, owner:write,
// PUBLISH|SPUBLISH, latch TTL ms].
// Reply: nil = not held, 0 = still held, 1 = released.
var writeUnlockScript = core.NewScript("rwlock.writeUnlock", lua.MustText(luaFiles, "lua/write_unlock.lua"))

// forceUnlockScript deletes the lock if it is in the given mode. A hash
// without "mode" is another kind's: it stays, and the script says so
// rather than answer "not in that mode".
// KEYS: [name, channel]. ARGV: [message, PUBLISH|SPUBLISH, mode].
// Reply: 1 = deleted, 0 = not in that mode (or no lock); the error
// WRONGKIND <kind> rwlock when another kind owns the hash (nothing done).
var forceUnlockScript = core.NewScript("rwlock.forceUnlock", lua.MustText(luaFiles, "lua/force_unlock.lua"))

// readIsLockedScript: a read lock is locked in read mode, or in write mode
// when the writer also holds reads (more than mode and its write field).
// KEYS: [name]. Reply: 1 or 0.
var readIsLockedScript = core.NewScript("rwlock.readIsLocked", lua.MustText(luaFiles, "lua/read_is_locked.lua"))

// holdCountScript reads a field's hold count on the master.
// KEYS: [name]. ARGV: [field]. Reply: the count, or nil.
var holdCountScript = core.NewScript("rwlock.holdCount", lua.MustText(luaFiles, "lua/hold_count.lua"))

// readRenewScript renews read holds: per lock, the hash and every timeout
// key of the listed owner (Redisson 4.4's read batch; 3.44–3.52 fail part
// way for a re-entrant read, docs/protocol.md §5.2, which we do not reproduce).
// An owner one of whose timeout keys is gone counts as not held and none of
// its keys is renewed: Redisson's read unlock no longer counts such a hold,
// so another reader's release may free the lock under it (Redisson renews
// it on and never tells). Its other keys then expire with their lease.
// KEYS: [name1, keyprefix1, name2, keyprefix2, ...]. ARGV: [lease ms,
// owner1, owner2, ...]. Reply: per lock 1 = renewed, 0 = not held.
var readRenewScript = core.NewScript("rwlock.readRenew", lua.MustText(luaFiles, "lua/read_renew.lua"))

// acquiredReply is the acquire scripts' "acquired": no PTTL is -3.
const acquiredReply = int64(-3)
