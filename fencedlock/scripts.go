package fencedlock

import (
	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/internal/lua"
)

// The scripts below keep Redisson's RFencedLock contract (docs/protocol.md §12, on
// top of RLock's §4): the same KEYS and ARGV order, the same writes, the
// same messages. Unlock, force unlock and renewal are RLock's.

// badTokenMarker is the error text lua/fragments/token_guard.lua replies
// with.
const badTokenMarker = "redisson fenced lock: token key holds no counter"

// acquireScript takes or re-enters the lock and issues the acquisition's
// token: every acquisition, re-entry included, increments the token key.
// A hash with more than the one holder field is another kind's, refused
// before anything is written, as RLock's acquire does (HLEN in the place
// of Redisson's EXISTS).
// KEYS: [name, token key]. ARGV: [lease ms, owner field].
// Reply: {-1, token} when held by the caller now, else {holder's PTTL, -1};
// the error WRONGKIND <kind> fencedlock when another kind owns the hash.
// Redisson decides "acquired" by the first element alone, so a holder's key
// without TTL (PTTL -1) passes for acquired there; we decide by the token
// (never -1 here, see lua/fragments/token_guard.lua).
var acquireScript = core.NewScript("fencedlock.acquire", lua.MustText(luaFiles, "lua/acquire.lua"))

// unlockScript is RLock's unlock: it releases one hold; the last one
// deletes the lock and publishes the unlock message. The token key stays.
// As rlock's, a final release's reply says how many connections heard the
// message (engine.HeardScripts).
// KEYS: [name, channel, latch]. ARGV: [message "0", lease ms, owner field,
// PUBLISH|SPUBLISH, latch TTL ms].
// Reply: nil = not the owner, 0 = still held, 1 + n = released, the message
// reached n connections (a replay from the latch answers 1: n unknown).
var unlockScript = core.NewScript("fencedlock.unlock", lua.MustText(luaFiles, "lua/unlock.lua"))

// unlockHandOffScript is unlockScript that, on the final release, hands the
// lock straight to a waiter of this client and issues the waiter's token in
// the same step: the owner's field goes, the waiter's comes (HSET 1,
// PEXPIRE its lease), the token key is incremented, the latch records the
// release. The net writes are what Redisson's unlock followed by the
// waiter's acquire would make, without the moment in between where the lock
// is free; nothing is published (see rlock's unlockHandOffScript).
// KEYS: [name, channel, latch, token key]. ARGV: [message "0", lease ms,
// owner field, PUBLISH|SPUBLISH, latch TTL ms, next owner field, next lease
// ms].
// Reply: nil = not the owner, 0 = still held, {1, token} = released and
// handed over with that token, 1 = released without a token: the latch
// replayed an earlier attempt that handed over (the engine reads its token
// from Redis), or the token key holds no counter, when the lock is released
// for real instead (the hold count is already down, so the script must not
// fail here; the waiter's own acquire then reports the bad key).
var unlockHandOffScript = core.NewScript("fencedlock.unlockHandOff", lua.MustText(luaFiles, "lua/unlock_hand_off.lua"))

// forceUnlockScript is RLock's: it deletes the lock whoever holds it. The
// token key stays. A key of another type, or a hash of another kind, is no
// lock of ours and stays (Redisson's DEL would remove it; see
// docs/interop.md): the key is checked in the script itself so that
// nothing can replace it between the check and the DEL.
// KEYS: [name, channel]. ARGV: [message "0", PUBLISH|SPUBLISH].
// Reply: 1 = deleted (and published), 0 = there was no lock, a string =
// the type the key holds instead of a hash (nothing done); the error
// WRONGKIND <kind> fencedlock when another kind owns the hash (nothing
// done).
var forceUnlockScript = core.NewScript("fencedlock.forceUnlock", lua.MustText(luaFiles, "lua/force_unlock.lua"))

// deleteScript is Redisson's delete(): it deletes the lock and its token
// key. Redisson publishes nothing; we publish the unlock message when a
// held lock was deleted, as forceUnlock does, so that waiters do not sleep
// out the lease. Like forceUnlock it leaves alone a name that holds
// anything but a lock's hash (Redisson's DEL removes whatever is there).
// KEYS: [name, token key, channel]. ARGV: [message "0", PUBLISH|SPUBLISH].
// Reply: 1 = something was deleted, 0 = neither key existed, a type name
// when the name holds another Redis type; the error WRONGKIND <kind>
// fencedlock when another kind owns the hash (nothing deleted).
var deleteScript = core.NewScript("fencedlock.delete", lua.MustText(luaFiles, "lua/delete.lua"))

// countTokenScript reads an owner's hold count and the latest token in one
// step on the master (recovery after a lost acquire or hand-off reply).
// KEYS: [name, token key]. ARGV: [owner field].
// Reply: {count or nil, token or nil}.
var countTokenScript = core.NewScript("fencedlock.countToken", lua.MustText(luaFiles, "lua/count_token.lua"))

// tokenScript reads the latest token on the master (Redisson's getToken is
// a GET sent to the master).
// KEYS: [token key]. Reply: the token, or nil.
var tokenScript = core.NewScript("fencedlock.token", lua.MustText(luaFiles, "lua/token.lua"))
