package fairlock

import (
	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/internal/lua"
)

// The scripts below keep Redisson 3.52's RFairLock contract (docs/protocol.md §6):
// the same KEYS and ARGV order, the same writes, replies and messages. Times
// are the client's wall clock in ms, as Java sends them.

// tryOnceScript is the try-once acquire (tryLock without a wait): it never
// queues the caller.
// KEYS: [name, queue, timeout]. ARGV: [lease ms, owner field, now, wait].
// Reply: nil = acquired, 1 = not acquired; the error WRONGKIND <kind>
// fairlock when another kind owns the hash (nothing written).
var tryOnceScript = core.NewScript("fairlock.tryOnce", lua.MustText(luaFiles, "lua/try_once.lua"))

// waitingScript is the waiting acquire (lock, tryLock with a wait): when the
// lock cannot be taken the caller joins the queue once, its stale deadline
// being the deadline of the waiter ahead (or the holder's TTL) plus wait.
// KEYS: [name, queue, timeout]. ARGV: [lease ms, owner field, wait, now]
// (wait and now swapped against tryOnceScript, as in Redisson).
// Reply: nil = acquired, else how long to sleep in ms (0: queued behind a
// head that has yet to take the free lock; negative: until a message); the
// error WRONGKIND <kind> fairlock when another kind owns the hash (nothing
// written, the caller not queued).
var waitingScript = core.NewScript("fairlock.waiting", lua.MustText(luaFiles, "lua/waiting.lua"))

// unlockScript releases one hold; the last one deletes the lock and wakes
// the queue head on its own channel. The latch records the reply so that a
// retried request returns what the first attempt did. An absent lock
// answers 1 and wakes the head, as Redisson's does.
// KEYS: [name, queue, timeout, channel, latch]. ARGV: [message "0", lease ms,
// owner field, now, PUBLISH|SPUBLISH, latch TTL ms].
// Reply: nil = not the owner, 0 = still held, 1 = released.
var unlockScript = core.NewScript("fairlock.unlock", lua.MustText(luaFiles, "lua/unlock.lua"))

// acquireFailedScript takes a waiter that gave up out of the queue; those
// behind it move up by its wait, undoing what its enqueue added to their
// deadlines.
// KEYS: [queue, timeout]. ARGV: [owner field, wait ms]. Reply: nil.
var acquireFailedScript = core.NewScript("fairlock.acquireFailed", lua.MustText(luaFiles, "lua/acquire_failed.lua"))

// wakeHeadScript wakes the queue's head when the lock is free. It runs after
// acquireFailedScript: a waiter that gives up just after the release woke it
// would otherwise swallow that wake-up, and the new head would sleep until
// its timer (Redisson has this gap). A spare "0" only makes a waiter try
// again, which Java waiters do as well.
// KEYS: [name, queue, channel]. ARGV: [message "0", PUBLISH|SPUBLISH].
// Reply: 1 = a head was woken, 0 = not.
var wakeHeadScript = core.NewScript("fairlock.wakeHead", lua.MustText(luaFiles, "lua/wake_head.lua"))

// forceUnlockScript deletes the lock whoever holds it and wakes the head.
// The three keys' types are checked first, in the script, so that a key of
// another type under any of them, or another kind's hash under the name
// (no fair lock of ours), stops it before it writes anything, stale heads
// included, and nothing can replace a key between the check and the DEL.
// Redisson's would delete a lock key of any type (see docs/interop.md).
// KEYS: [name, queue, timeout, channel]. ARGV: [message "0", now,
// PUBLISH|SPUBLISH]. Reply: 1 = deleted, 0 = there was no lock, {key,
// type, wanted type} = that key holds another type (nothing done); the
// error WRONGKIND <kind> fairlock when another kind owns the hash (nothing
// done).
var forceUnlockScript = core.NewScript("fairlock.forceUnlock", lua.MustText(luaFiles, "lua/force_unlock.lua"))

// holdCountScript reads an owner's hold count on the master.
// KEYS: [name]. ARGV: [owner field]. Reply: the count, or nil.
var holdCountScript = core.NewScript("fairlock.holdCount", lua.MustText(luaFiles, "lua/hold_count.lua"))

// The non-reentrant fair lock's acquire scripts (Redisson 4.7's
// RedissonNonReentrantFairLock) make RFairLock's calls without its
// re-entry: the holder's second acquisition is refused with the error
// reply their last argument names, "NON_REENTRANT_REACQUIRE", and nothing
// changes. They leave out the check of another kind's hash that ours make
// (own_hash), so that they send Redisson's calls and no other.

// nonReentrantTryOnceScript is tryOnceScript without re-entry.
// KEYS: [name, queue, timeout]. ARGV: [lease ms, owner field, now, wait,
// "NON_REENTRANT_REACQUIRE"]. Reply: nil = acquired, 1 = not acquired, or
// the error reply.
var nonReentrantTryOnceScript = core.NewScript("fairlock.nonReentrantTryOnce", lua.MustText(luaFiles, "lua/nonreentrant_try_once.lua"))

// nonReentrantWaitingScript is waitingScript without re-entry.
// KEYS: [name, queue, timeout]. ARGV: [lease ms, owner field, wait, now,
// "NON_REENTRANT_REACQUIRE"]. Reply: as waitingScript's, or the error
// reply.
var nonReentrantWaitingScript = core.NewScript("fairlock.nonReentrantWaiting", lua.MustText(luaFiles, "lua/nonreentrant_waiting.lua"))
