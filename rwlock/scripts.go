package rwlock

import "github.com/goredisson/redisson/internal/core"

// The scripts below keep Redisson 3.52's RReadWriteLock contract (protocol
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
// runs through its retry checks at ~17 allocations) = acquired, else the
// lock's PTTL; the error WRONGKIND <kind> rwlock when another kind owns the
// hash.
var readAcquireScript = core.NewScript("rwlock.readAcquire", `
if redis.call('exists', KEYS[1]) == 0 then
	redis.call('hset', KEYS[1], 'mode', 'read')
	redis.call('hset', KEYS[1], ARGV[2], 1)
	redis.call('set', KEYS[2] .. ':1', 1)
	redis.call('pexpire', KEYS[2] .. ':1', ARGV[1])
	redis.call('pexpire', KEYS[1], ARGV[1])
	return -3
end
local mode = redis.call('hget', KEYS[1], 'mode')
if mode == false then
`+core.RefuseHash("KEYS[1]", core.KindRWLock)+`
end
if mode == 'read' or (mode == 'write' and redis.call('hexists', KEYS[1], ARGV[3]) == 1) then
	local k = redis.call('hincrby', KEYS[1], ARGV[2], 1)
	local key = KEYS[2] .. ':' .. k
	redis.call('set', key, 1)
	redis.call('pexpire', key, ARGV[1])
	redis.call('pexpire', KEYS[1], math.max(redis.call('pttl', KEYS[1]), tonumber(ARGV[1])))
	return -3
end
return redis.call('pttl', KEYS[1])
`)

// readUnlockScript releases one read hold (its newest timeout key). With
// other holders left the hash lives as long as their longest hold; with
// none (or only expired ones) it is deleted and "0" published.
// KEYS: [name, channel, timeout prefix, key prefix, latch]. ARGV: [message
// "0", owner field, PUBLISH|SPUBLISH, latch TTL ms].
// Reply: nil = not held, 0 = still locked, 1 = freed.
var readUnlockScript = core.NewScript("rwlock.readUnlock", `
local replay = redis.call('get', KEYS[5])
if replay ~= false then
	return tonumber(replay)
end
local mode = redis.call('hget', KEYS[1], 'mode')
if mode == false then
	redis.call(ARGV[3], KEYS[2], ARGV[1])
	redis.call('set', KEYS[5], 1, 'px', ARGV[4])
	return nil
end
if redis.call('hexists', KEYS[1], ARGV[2]) == 0 then
	return nil
end
local c = redis.call('hincrby', KEYS[1], ARGV[2], -1)
if c == 0 then
	redis.call('hdel', KEYS[1], ARGV[2])
end
redis.call('del', KEYS[3] .. ':' .. (c + 1))
if redis.call('hlen', KEYS[1]) > 1 then
	local longest = -3
	for _, f in ipairs(redis.call('hkeys', KEYS[1])) do
		local n = tonumber(redis.call('hget', KEYS[1], f))
		if type(n) == 'number' then
			for k = n, 1, -1 do
				longest = math.max(longest, redis.call('pttl', KEYS[4] .. ':' .. f .. ':rwlock_timeout:' .. k))
			end
		end
	end
	if longest > 0 then
		redis.call('pexpire', KEYS[1], longest)
		redis.call('set', KEYS[5], 0, 'px', ARGV[4])
		return 0
	end
	if mode == 'write' then
		redis.call('set', KEYS[5], 0, 'px', ARGV[4])
		return 0
	end
end
redis.call('del', KEYS[1])
redis.call(ARGV[3], KEYS[2], ARGV[1])
redis.call('set', KEYS[5], 1, 'px', ARGV[4])
return 1
`)

// writeAcquireScript takes or re-enters the write lock; re-entry adds the
// lease to the remaining TTL, as Redisson does. A hash without "mode" is
// another kind's, refused before anything is written (EXISTS in the place
// of Redisson's first HGET, as readAcquireScript).
// KEYS: [name]. ARGV: [lease ms, owner:write].
// Reply: acquiredReply (-3, as readAcquireScript) = acquired, else the
// lock's PTTL; the error WRONGKIND <kind> rwlock when another kind owns the
// hash.
var writeAcquireScript = core.NewScript("rwlock.writeAcquire", `
if redis.call('exists', KEYS[1]) == 0 then
	redis.call('hset', KEYS[1], 'mode', 'write')
	redis.call('hset', KEYS[1], ARGV[2], 1)
	redis.call('pexpire', KEYS[1], ARGV[1])
	return -3
end
local mode = redis.call('hget', KEYS[1], 'mode')
if mode == false then
`+core.RefuseHash("KEYS[1]", core.KindRWLock)+`
end
if mode == 'write' and redis.call('hexists', KEYS[1], ARGV[2]) == 1 then
	redis.call('hincrby', KEYS[1], ARGV[2], 1)
	redis.call('pexpire', KEYS[1], redis.call('pttl', KEYS[1]) + tonumber(ARGV[1]))
	return -3
end
return redis.call('pttl', KEYS[1])
`)

// writeUnlockScript releases one write hold. The last one deletes the lock
// and publishes "1", unless the owner still holds reads (downgrade): then
// the mode turns to read and nothing is published.
// KEYS: [name, channel, latch]. ARGV: [message "1", lease ms, owner:write,
// PUBLISH|SPUBLISH, latch TTL ms].
// Reply: nil = not held, 0 = still held, 1 = released.
var writeUnlockScript = core.NewScript("rwlock.writeUnlock", `
local replay = redis.call('get', KEYS[3])
if replay ~= false then
	return tonumber(replay)
end
local mode = redis.call('hget', KEYS[1], 'mode')
if mode == false then
	redis.call(ARGV[4], KEYS[2], ARGV[1])
	redis.call('set', KEYS[3], 1, 'px', ARGV[5])
	return nil
end
if mode ~= 'write' or redis.call('hexists', KEYS[1], ARGV[3]) == 0 then
	return nil
end
local c = redis.call('hincrby', KEYS[1], ARGV[3], -1)
if c > 0 then
	redis.call('pexpire', KEYS[1], ARGV[2])
	redis.call('set', KEYS[3], 0, 'px', ARGV[5])
	return 0
end
redis.call('hdel', KEYS[1], ARGV[3])
if redis.call('hlen', KEYS[1]) == 1 then
	redis.call('del', KEYS[1])
	redis.call(ARGV[4], KEYS[2], ARGV[1])
else
	redis.call('hset', KEYS[1], 'mode', 'read')
end
redis.call('set', KEYS[3], 1, 'px', ARGV[5])
return 1
`)

// forceUnlockScript deletes the lock if it is in the given mode. A hash
// without "mode" is another kind's: it stays, and the script says so
// rather than answer "not in that mode".
// KEYS: [name, channel]. ARGV: [message, PUBLISH|SPUBLISH, mode].
// Reply: 1 = deleted, 0 = not in that mode (or no lock); the error
// WRONGKIND <kind> rwlock when another kind owns the hash (nothing done).
var forceUnlockScript = core.NewScript("rwlock.forceUnlock", `
local mode = redis.call('hget', KEYS[1], 'mode')
if mode == ARGV[3] then
	redis.call('del', KEYS[1])
	redis.call(ARGV[2], KEYS[2], ARGV[1])
	return 1
end
if mode == false and redis.call('exists', KEYS[1]) == 1 then
`+core.RefuseHash("KEYS[1]", core.KindRWLock)+`
end
return 0
`)

// readIsLockedScript: a read lock is locked in read mode, or in write mode
// when the writer also holds reads (more than mode and its write field).
// KEYS: [name]. Reply: 1 or 0.
var readIsLockedScript = core.NewScript("rwlock.readIsLocked", `
local mode = redis.call('hget', KEYS[1], 'mode')
if mode == 'read' or (mode == 'write' and redis.call('hlen', KEYS[1]) > 2) then
	return 1
end
return 0
`)

// holdCountScript reads a field's hold count on the master.
// KEYS: [name]. ARGV: [field]. Reply: the count, or nil.
var holdCountScript = core.NewScript("rwlock.holdCount", `
return redis.call('hget', KEYS[1], ARGV[1])
`)

// readRenewScript renews read holds: per lock, the hash and every timeout
// key of the listed owner (Redisson 4.4's read batch; 3.44–3.52 fail part
// way for a re-entrant read, protocol §5.2, which we do not reproduce).
// An owner one of whose timeout keys is gone counts as not held and none of
// its keys is renewed: Redisson's read unlock no longer counts such a hold,
// so another reader's release may free the lock under it (Redisson renews
// it on and never tells). Its other keys then expire with their lease.
// KEYS: [name1, keyprefix1, name2, keyprefix2, ...]. ARGV: [lease ms,
// owner1, owner2, ...]. Reply: per lock 1 = renewed, 0 = not held.
var readRenewScript = core.NewScript("rwlock.readRenew", `
local out = {}
for i = 1, #KEYS / 2 do
	local name, prefix, owner = KEYS[2 * i - 1], KEYS[2 * i], ARGV[i + 1]
	local c = redis.pcall('hget', name, owner)
	local n = tonumber(c)
	out[i] = 0
	if type(n) == 'number' and n >= 1 then
		local base = prefix .. ':' .. owner .. ':rwlock_timeout:'
		local all = true
		for k = n, 1, -1 do
			if redis.call('exists', base .. k) == 0 then
				all = false
				break
			end
		end
		if all then
			for k = n, 1, -1 do
				redis.call('pexpire', base .. k, ARGV[1])
			end
			redis.call('pexpire', name, ARGV[1])
			out[i] = 1
		end
	end
end
return out
`)

// acquiredReply is the acquire scripts' "acquired": no PTTL is -3.
const acquiredReply = int64(-3)
