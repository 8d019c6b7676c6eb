package fairlock

import "github.com/goredisson/redisson/internal/core"

// The scripts below keep Redisson 3.52's RFairLock contract (protocol §6):
// the same KEYS and ARGV order, the same writes, replies and messages. Times
// are the client's wall clock in ms, as Java sends them.

// dropStaleHead removes queue heads whose stale deadline has passed; the
// script that includes it names the ARGV holding "now". A head without a
// score stops the loop (Redisson 3.32+).
func dropStaleHead(now string) string {
	return `
while true do
	local head = redis.call('lindex', KEYS[2], 0)
	if head == false then
		break
	end
	local s = redis.call('zscore', KEYS[3], head)
	if s ~= false and tonumber(s) <= tonumber(` + now + `) then
		redis.call('zrem', KEYS[3], head)
		redis.call('lpop', KEYS[2])
	else
		break
	end
end
`
}

// ownHash is the first step of both acquire variants: a lock's hash has
// exactly one field, its holder's, so a hash with more is another kind's
// (a read-write lock's reader has the very field the caller would
// re-enter) and is refused before anything, a stale head included, is
// written. It leaves n, the hash's length, for takeOrReenter: HLEN takes
// the place of Redisson's EXISTS, so no path sends one call more.
var ownHash = `
local n = redis.call('hlen', KEYS[1])
if n > 1 then
` + core.RefuseHash("KEYS[1]", core.KindFairLock) + `
end
`

// takeOrReenter is the common part of both acquire variants: the lock is
// free and nobody else is first in line, or the caller re-enters. The
// queue's other deadlines move up by the caller's wait, since the chain of
// deadlines counts one wait per waiter ahead. wait names the ARGV holding
// the wait; n is the hash's length (ownHash).
func takeOrReenter(wait string) string {
	return `
if n == 0 and (redis.call('exists', KEYS[2]) == 0 or redis.call('lindex', KEYS[2], 0) == ARGV[2]) then
	redis.call('lpop', KEYS[2])
	redis.call('zrem', KEYS[3], ARGV[2])
	local queued = redis.call('zrange', KEYS[3], 0, -1)
	for i = 1, #queued do
		redis.call('zincrby', KEYS[3], -tonumber(` + wait + `), queued[i])
	end
	redis.call('hset', KEYS[1], ARGV[2], 1)
	redis.call('pexpire', KEYS[1], ARGV[1])
	return nil
end
if redis.call('hexists', KEYS[1], ARGV[2]) == 1 then
	redis.call('hincrby', KEYS[1], ARGV[2], 1)
	redis.call('pexpire', KEYS[1], ARGV[1])
	return nil
end
`
}

// tryOnceScript is the try-once acquire (tryLock without a wait): it never
// queues the caller.
// KEYS: [name, queue, timeout]. ARGV: [lease ms, owner field, now, wait].
// Reply: nil = acquired, 1 = not acquired; the error WRONGKIND <kind>
// fairlock when another kind owns the hash (nothing written).
var tryOnceScript = core.NewScript("fairlock.tryOnce", ownHash+dropStaleHead("ARGV[3]")+takeOrReenter("ARGV[4]")+`
return 1
`)

// waitingScript is the waiting acquire (lock, tryLock with a wait): when the
// lock cannot be taken the caller joins the queue once, its stale deadline
// being the deadline of the waiter ahead (or the holder's TTL) plus wait.
// KEYS: [name, queue, timeout]. ARGV: [lease ms, owner field, wait, now]
// (wait and now swapped against tryOnceScript, as in Redisson).
// Reply: nil = acquired, else how long to sleep in ms (0: queued behind a
// head that has yet to take the free lock; negative: until a message); the
// error WRONGKIND <kind> fairlock when another kind owns the hash (nothing
// written, the caller not queued).
var waitingScript = core.NewScript("fairlock.waiting", ownHash+dropStaleHead("ARGV[4]")+takeOrReenter("ARGV[3]")+`
if redis.call('zscore', KEYS[3], ARGV[2]) ~= false then
	return math.max(0, redis.call('pttl', KEYS[1]))
end
local last = redis.call('lindex', KEYS[2], -1)
local ttl
local lastScore = false
if last ~= false and last ~= ARGV[2] then
	lastScore = redis.call('zscore', KEYS[3], last)
end
if lastScore ~= false then
	ttl = tonumber(lastScore) - tonumber(ARGV[4])
else
	ttl = redis.call('pttl', KEYS[1])
end
local deadline = ttl + tonumber(ARGV[3]) + tonumber(ARGV[4])
if redis.call('zadd', KEYS[3], deadline, ARGV[2]) == 1 then
	redis.call('rpush', KEYS[2], ARGV[2])
end
return ttl
`)

// unlockScript releases one hold; the last one deletes the lock and wakes
// the queue head on its own channel. The latch records the reply so that a
// retried request returns what the first attempt did. An absent lock
// answers 1 and wakes the head, as Redisson's does.
// KEYS: [name, queue, timeout, channel, latch]. ARGV: [message "0", lease ms,
// owner field, now, PUBLISH|SPUBLISH, latch TTL ms].
// Reply: nil = not the owner, 0 = still held, 1 = released.
var unlockScript = core.NewScript("fairlock.unlock", `
local replay = redis.call('get', KEYS[5])
if replay ~= false then
	return tonumber(replay)
end
`+dropStaleHead("ARGV[4]")+`
if redis.call('exists', KEYS[1]) == 0 then
	local head = redis.call('lindex', KEYS[2], 0)
	if head ~= false then
		redis.call(ARGV[5], KEYS[4] .. ':' .. head, ARGV[1])
	end
	redis.call('set', KEYS[5], 1, 'px', ARGV[6])
	return 1
end
if redis.call('hexists', KEYS[1], ARGV[3]) == 0 then
	return nil
end
local left = redis.call('hincrby', KEYS[1], ARGV[3], -1)
if left > 0 then
	redis.call('pexpire', KEYS[1], ARGV[2])
	redis.call('set', KEYS[5], 0, 'px', ARGV[6])
	return 0
end
redis.call('del', KEYS[1])
redis.call('set', KEYS[5], 1, 'px', ARGV[6])
local head = redis.call('lindex', KEYS[2], 0)
if head ~= false then
	redis.call(ARGV[5], KEYS[4] .. ':' .. head, ARGV[1])
end
return 1
`)

// acquireFailedScript takes a waiter that gave up out of the queue; those
// behind it move up by its wait, undoing what its enqueue added to their
// deadlines.
// KEYS: [queue, timeout]. ARGV: [owner field, wait ms]. Reply: nil.
var acquireFailedScript = core.NewScript("fairlock.acquireFailed", `
local queue = redis.call('lrange', KEYS[1], 0, -1)
local i = 1
while i <= #queue and queue[i] ~= ARGV[1] do
	i = i + 1
end
for j = i + 1, #queue do
	redis.call('zincrby', KEYS[2], -tonumber(ARGV[2]), queue[j])
end
redis.call('zrem', KEYS[2], ARGV[1])
redis.call('lrem', KEYS[1], 0, ARGV[1])
return nil
`)

// wakeHeadScript wakes the queue's head when the lock is free. It runs after
// acquireFailedScript: a waiter that gives up just after the release woke it
// would otherwise swallow that wake-up, and the new head would sleep until
// its timer (Redisson has this gap). A spare "0" only makes a waiter try
// again, which Java waiters do as well.
// KEYS: [name, queue, channel]. ARGV: [message "0", PUBLISH|SPUBLISH].
// Reply: 1 = a head was woken, 0 = not.
var wakeHeadScript = core.NewScript("fairlock.wakeHead", `
if redis.call('exists', KEYS[1]) == 1 then
	return 0
end
local head = redis.call('lindex', KEYS[2], 0)
if head == false then
	return 0
end
redis.call(ARGV[2], KEYS[3] .. ':' .. head, ARGV[1])
return 1
`)

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
var forceUnlockScript = core.NewScript("fairlock.forceUnlock", `
local want = {'hash', 'list', 'zset'}
for i = 1, 3 do
	local t = redis.call('type', KEYS[i])['ok']
	if t ~= 'none' and t ~= want[i] then
		return {KEYS[i], t, want[i]}
	end
end
if redis.call('hlen', KEYS[1]) > 1 then
`+core.RefuseHash("KEYS[1]", core.KindFairLock)+`
end
`+dropStaleHead("ARGV[2]")+`
if redis.call('del', KEYS[1]) == 1 then
	local head = redis.call('lindex', KEYS[2], 0)
	if head ~= false then
		redis.call(ARGV[3], KEYS[4] .. ':' .. head, ARGV[1])
	end
	return 1
end
return 0
`)

// holdCountScript reads an owner's hold count on the master.
// KEYS: [name]. ARGV: [owner field]. Reply: the count, or nil.
var holdCountScript = core.NewScript("fairlock.holdCount", `
return redis.call('hget', KEYS[1], ARGV[1])
`)
