package rlock

import (
	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/internal/lua"
)

// The scripts below keep Redisson's RLock contract (docs/protocol.md §4, §5): the
// same KEYS and ARGV order, the same writes, the same replies and messages.

// acquireScript takes or re-enters the lock. A lock's hash has exactly one
// field, its holder's; a hash with more is another kind's (a read-write
// lock's reader has the very field a lock of the same owner would
// re-enter), which the script refuses before writing anything. HLEN takes
// the place of Redisson's EXISTS, so no path sends one call more.
// KEYS: [name]. ARGV: [lease ms, owner field].
// Reply: acquiredReply when held by the caller now (Redisson's script
// answers nil), else the holder's PTTL (-1: no TTL); the error WRONGKIND
// <kind> lock when another kind owns the hash.
var acquireScript = core.NewScript("rlock.acquire", lua.MustText(luaFiles, "lua/acquire.lua"))

// acquiredReply is acquireScript's "acquired": no PTTL is -3. Not nil, as
// in Redisson's script: go-redis hands a nil reply to its retry
// classification as an error, which allocates on every acquire.
const acquiredReply = int64(-3)

// unlockScript releases one hold; the last one deletes the lock and publishes
// the unlock message. The latch key records the reply so a retried request
// returns what the first attempt did. The reply of a final release also
// says how many connections the message reached (PUBLISH's reply), which
// tells the engine whether waiters of other clients listen (see
// engine.HeardScripts); the latch keeps Redisson's 1.
// KEYS: [name, channel, latch]. ARGV: [message "0", lease ms, owner field,
// PUBLISH|SPUBLISH, latch TTL ms].
// Reply: nil = not the owner, 0 = still held, 1 + n = released, the message
// reached n connections (a replay from the latch answers 1: n unknown).
var unlockScript = core.NewScript("rlock.unlock", lua.MustText(luaFiles, "lua/unlock.lua"))

// forceUnlockScript deletes the lock whoever holds it. A key of another
// type, or a hash of another kind (more than the one holder field), is no
// lock of ours and stays (Redisson's DEL would remove it; see
// docs/interop.md): the key is checked in the script itself so that
// nothing can replace it between the check and the DEL.
// KEYS: [name, channel]. ARGV: [message "0", PUBLISH|SPUBLISH].
// Reply: 1 = deleted (and published), 0 = there was no lock, a string =
// the type the key holds instead of a hash (nothing done); the error
// WRONGKIND <kind> lock when another kind owns the hash (nothing done).
var forceUnlockScript = core.NewScript("rlock.forceUnlock", lua.MustText(luaFiles, "lua/force_unlock.lua"))

// unlockHandOffScript is unlockScript that, on the final release, hands the
// lock straight to a waiter of this client: the owner's field goes, the
// waiter's comes (HSET 1, PEXPIRE its lease), and the latch records the
// release, in one round trip. The lock never becomes free, so nothing is
// published: a waiter elsewhere could only find it held (a deliberate
// deviation from Redisson, which would publish "0" after its DEL; see
// docs/interop.md). The real release after at most
// engine.maxHandOffStreak hand-offs publishes as Redisson does.
// KEYS: [name, channel, latch]. ARGV: [message "0", lease ms, owner field,
// PUBLISH|SPUBLISH, latch TTL ms, next owner field, next lease ms].
// Reply: nil = not the owner, 0 = still held, 1 = released and handed over.
var unlockHandOffScript = core.NewScript("rlock.unlockHandOff", lua.MustText(luaFiles, "lua/unlock_hand_off.lua"))

// holdCountScript reads an owner's hold count on the master.
// KEYS: [name]. ARGV: [owner field]. Reply: the count, or nil.
var holdCountScript = core.NewScript("rlock.holdCount", lua.MustText(luaFiles, "lua/hold_count.lua"))

// The spin lock's scripts are Redisson's text (docs/protocol.md): Java's
// spin lock and ours poll the same hash and never publish.

// spinAcquireScript takes or re-enters the spin lock.
// KEYS: [name]. ARGV: [lease ms, owner field].
// Reply: nil when held by the caller now, else the holder's PTTL.
var spinAcquireScript = core.NewScript("rlock.spinAcquire", lua.MustText(luaFiles, "lua/spin_acquire.lua"))

// spinUnlockScript releases one hold of the spin lock; the last one deletes
// it. Nothing is published: waiters poll.
// KEYS: [name, latch]. ARGV: [lease ms, owner field, latch TTL ms].
// Reply: nil = not the owner, 0 = still held, 1 = released.
var spinUnlockScript = core.NewScript("rlock.spinUnlock", lua.MustText(luaFiles, "lua/spin_unlock.lua"))

// spinForceUnlockScript deletes the spin lock's key, whatever it holds.
// KEYS: [name]. Reply: 1 = deleted, 0 = there was none.
var spinForceUnlockScript = core.NewScript("rlock.spinForceUnlock", lua.MustText(luaFiles, "lua/spin_force_unlock.lua"))

// nonReentrantAcquireScript takes the non-reentrant lock, or refuses its
// holder's second acquisition with the error reply ARGV[3].
// KEYS: [name]. ARGV: [lease ms, owner field, "NON_REENTRANT_REACQUIRE"].
// Reply: acquiredReply, the holder's PTTL, or the error reply.
var nonReentrantAcquireScript = core.NewScript("rlock.nonReentrantAcquire", lua.MustText(luaFiles, "lua/nonreentrant_acquire.lua"))
