package multilock

import (
	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/internal/lua"
)

// The scripts below keep the contract of Redisson's RedissonFasterMultiLock
// (docs/protocol.md §11.3): one hash G per group; per value field id f the fields
// f = owner, f:<owner>:expire_time (absolute client-clock ms) and
// f:<owner>:lock_count; the same KEYS and ARGV order, the same writes,
// replies and messages. Where Redisson's script would fail on a field left
// half-written (a held value without expire_time), these treat the value
// as free, as Redisson's waiting acquire does.

// groupTryScript is the try-once acquire (Redisson's tryLockOnceInnerAsync,
// used by tryLock() without wait).
// KEYS: [G]. ARGV: [now ms, lease ms, owner field, f1..fk] (now first).
// Reply: 1 = every value is the owner's now, 0 = a value is held by another
// owner whose expiry is after now (nothing changed); the error WRONGKIND
// <kind> group when another kind owns the hash (nothing changed).
var groupTryScript = core.NewScript("multilock.groupTry", lua.MustText(luaFiles, "lua/group_try.lua"))

// groupAcquireScript is the waiting acquire (Redisson's tryLockInnerAsync,
// used by lock() and tryLock(wait)).
// KEYS: [G]. ARGV: [lease ms, now ms, owner field, f1..fk] (lease first).
// Reply: nil = every value is the owner's now, else the ms until the
// latest expiry among the values other owners hold (nothing changed); the
// error WRONGKIND <kind> group when another kind owns the hash (nothing
// changed).
var groupAcquireScript = core.NewScript("multilock.groupAcquire", lua.MustText(luaFiles, "lua/group_acquire.lua"))

// groupUnlockScript releases one hold of every value (Redisson's 3.44+
// unlock layout). A value whose count reaches 0 loses its three fields; the
// others get their expiry raised to now+lease. The unlock message is
// published whenever the owner held every value (Redisson's "deleted" flag
// is 0 or 1, and Lua takes 0 for true), and also when G is gone.
// KEYS: [G, channel, latch]. ARGV: [owner field, message "0", lease ms,
// PUBLISH|SPUBLISH, latch TTL ms, now ms, f1..fk].
// Reply: nil = G is gone or a value was not (or no longer) the owner's
// (changes to the other values stay, as in Redisson), 1 = every value was
// freed, 0 = the owner still holds some (re-entrant).
var groupUnlockScript = core.NewScript("multilock.groupUnlock", lua.MustText(luaFiles, "lua/group_unlock.lua"))

// groupForceUnlockScript frees the values whoever holds them and publishes
// the unlock message. Redisson's script fails on a value nobody holds; this
// one skips it. Another kind's hash is left alone and nothing is published
// (its waiters, a lock's on the same channel, would be woken for nothing).
// KEYS: [G, channel]. ARGV: [message "0", PUBLISH|SPUBLISH, f1..fk].
// Reply: the number of values freed; the error WRONGKIND <kind> group when
// another kind owns the hash (nothing done).
var groupForceUnlockScript = core.NewScript("multilock.groupForceUnlock", lua.MustText(luaFiles, "lua/group_force_unlock.lua"))

// groupRenewScript renews one owner's hold of a group (Redisson's 3.44+
// FastMultilockTask, one group per call): every value must still be the
// owner's; each expiry is raised to now+lease and G's TTL to the lease.
// KEYS: [G]. ARGV: [lease ms, now ms, owner field, f1..fk].
// Reply: 1 = renewed, 0 = G is gone or a value is not the owner's.
var groupRenewScript = core.NewScript("multilock.groupRenew", lua.MustText(luaFiles, "lua/group_renew.lua"))

// groupCountScript reads how many holds the owner has of every value: the
// smallest lock_count among them, 0 when a value is not the owner's.
// KEYS: [G]. ARGV: [owner field, f1..fk]. Reply: the count.
var groupCountScript = core.NewScript("multilock.groupCount", lua.MustText(luaFiles, "lua/group_count.lua"))

// groupIsLockedScript reports whether any value is held: it has an owner
// whose expiry is not before now (Redisson's isLocked).
// KEYS: [G]. ARGV: [now ms, f1..fk]. Reply: 1 or 0.
var groupIsLockedScript = core.NewScript("multilock.groupIsLocked", lua.MustText(luaFiles, "lua/group_is_locked.lua"))

// groupIsHeldScript reports whether the owner holds every value: it is the
// value's owner and its expiry is not before now. Redisson's
// isHeldByThread starts at the second value and does not compare the owner
// field; this one checks every value.
// KEYS: [G]. ARGV: [now ms, owner field, f1..fk]. Reply: 1 or 0.
var groupIsHeldScript = core.NewScript("multilock.groupIsHeld", lua.MustText(luaFiles, "lua/group_is_held.lua"))
