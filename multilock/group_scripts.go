package multilock

import "github.com/goredisson/redisson/internal/core"

// The scripts below keep the contract of Redisson's RedissonFasterMultiLock
// (protocol §11.3): one hash G per group; per value field id f the fields
// f = owner, f:<owner>:expire_time (absolute client-clock ms) and
// f:<owner>:lock_count; the same KEYS and ARGV order, the same writes,
// replies and messages. Where Redisson's script would fail on a field left
// half-written (a held value without expire_time), these treat the value
// as free, as Redisson's waiting acquire does.

// groupTake is the common end of both acquire scripts: take every value for
// the owner, raise its expiry to now+lease, count the hold, and lengthen
// G's TTL to the lease (a new G gets it; unlike Redisson's, also one whose
// PTTL is 0, which would expire at once with the values just taken). Locals: now, lease, me, existed,
// first (the ARGV index of the first field id).
const groupTake = `
local expire = now + lease
for i = first, #ARGV do
	local f = ARGV[i]
	local ef = f .. ':' .. me .. ':expire_time'
	redis.call('hset', KEYS[1], f, me)
	local cur = tonumber(redis.call('hget', KEYS[1], ef))
	if cur == nil or cur < expire then
		redis.call('hset', KEYS[1], ef, expire)
	end
	redis.call('hincrby', KEYS[1], f .. ':' .. me .. ':lock_count', 1)
end
if existed then
	-- Redisson lengthens only a PTTL > 0: a hash with less than 1ms left
	-- (PTTL 0) would vanish with the values just taken. A hash without
	-- TTL (-1) is left so, as in Redisson.
	local pttl = redis.call('pttl', KEYS[1])
	if pttl >= 0 and lease > pttl then
		redis.call('pexpire', KEYS[1], lease)
	end
else
	redis.call('pexpire', KEYS[1], lease)
end
`

// groupOwnHash refuses, before anything is written, a hash that another
// kind owns: a lock's has exactly one field (a group's has at least two:
// a value's expiry and count stay behind when another owner took it and
// let it go), a read-write lock's has "mode", a rate limiter's "rate".
// None of them has a field a value id could match, so without the check
// the values would be taken into that hash. n is the hash's length, read
// with HLEN in the place of Redisson's EXISTS: the check costs one HMGET,
// and only when the hash exists.
var groupOwnHash = `
local other = redis.call('hmget', KEYS[1], 'mode', 'rate')
if n == 1 or other[1] or other[2] then
` + core.RefuseHash("KEYS[1]", core.KindGroup) + `
end
`

// groupTryScript is the try-once acquire (Redisson's tryLockOnceInnerAsync,
// used by tryLock() without wait).
// KEYS: [G]. ARGV: [now ms, lease ms, owner field, f1..fk] (now first).
// Reply: 1 = every value is the owner's now, 0 = a value is held by another
// owner whose expiry is after now (nothing changed); the error WRONGKIND
// <kind> group when another kind owns the hash (nothing changed).
var groupTryScript = core.NewScript("multilock.groupTry", `
local now = tonumber(ARGV[1])
local lease = tonumber(ARGV[2])
local me = ARGV[3]
local first = 4
local n = redis.call('hlen', KEYS[1])
local existed = n > 0
if existed then
`+groupOwnHash+`
	for i = first, #ARGV do
		local holder = redis.call('hget', KEYS[1], ARGV[i])
		if holder and holder ~= me then
			local expiry = tonumber(redis.call('hget', KEYS[1], ARGV[i] .. ':' .. holder .. ':expire_time'))
			if expiry ~= nil and expiry > now then
				return 0
			end
		end
	end
end
`+groupTake+`
return 1
`)

// groupAcquireScript is the waiting acquire (Redisson's tryLockInnerAsync,
// used by lock() and tryLock(wait)).
// KEYS: [G]. ARGV: [lease ms, now ms, owner field, f1..fk] (lease first).
// Reply: nil = every value is the owner's now, else the ms until the
// latest expiry among the values other owners hold (nothing changed); the
// error WRONGKIND <kind> group when another kind owns the hash (nothing
// changed).
var groupAcquireScript = core.NewScript("multilock.groupAcquire", `
local lease = tonumber(ARGV[1])
local now = tonumber(ARGV[2])
local me = ARGV[3]
local first = 4
local n = redis.call('hlen', KEYS[1])
local existed = n > 0
if existed then
`+groupOwnHash+`
	local latest = -1
	for i = first, #ARGV do
		local holder = redis.call('hget', KEYS[1], ARGV[i])
		if holder and holder ~= me then
			local expiry = tonumber(redis.call('hget', KEYS[1], ARGV[i] .. ':' .. holder .. ':expire_time'))
			if expiry ~= nil and expiry > now and expiry > latest then
				latest = expiry
			end
		end
	end
	if latest ~= -1 then
		return latest - now
	end
end
`+groupTake+`
return nil
`)

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
var groupUnlockScript = core.NewScript("multilock.groupUnlock", `
local replay = redis.call('get', KEYS[3])
if replay ~= false then
	return tonumber(replay)
end
if redis.call('exists', KEYS[1]) == 0 then
	redis.call(ARGV[4], KEYS[2], ARGV[2])
	return nil
end
local me = ARGV[1]
local now = tonumber(ARGV[6])
local renewed = tonumber(ARGV[3]) + now
local failed, freed = false, true
for i = 7, #ARGV do
	local f = ARGV[i]
	local ef = f .. ':' .. me .. ':expire_time'
	local cf = f .. ':' .. me .. ':lock_count'
	local cur = tonumber(redis.call('hget', KEYS[1], ef))
	if cur ~= nil and cur >= now then
		if redis.call('hincrby', KEYS[1], cf, -1) <= 0 then
			redis.call('hdel', KEYS[1], ef, cf, f)
		else
			if cur < renewed then
				redis.call('hset', KEYS[1], ef, renewed)
			end
			freed = false
		end
	else
		freed, failed = false, true
	end
end
if failed then
	return nil
end
redis.call(ARGV[4], KEYS[2], ARGV[2])
if freed then
	redis.call('set', KEYS[3], 1, 'px', ARGV[5])
	return 1
end
redis.call('set', KEYS[3], 0, 'px', ARGV[5])
if tonumber(ARGV[3]) > redis.call('pttl', KEYS[1]) then
	redis.call('pexpire', KEYS[1], ARGV[3])
end
return 0
`)

// groupForceUnlockScript frees the values whoever holds them and publishes
// the unlock message. Redisson's script fails on a value nobody holds; this
// one skips it. Another kind's hash is left alone and nothing is published
// (its waiters, a lock's on the same channel, would be woken for nothing).
// KEYS: [G, channel]. ARGV: [message "0", PUBLISH|SPUBLISH, f1..fk].
// Reply: the number of values freed; the error WRONGKIND <kind> group when
// another kind owns the hash (nothing done).
var groupForceUnlockScript = core.NewScript("multilock.groupForceUnlock", `
local n = redis.call('hlen', KEYS[1])
if n > 0 then
`+groupOwnHash+`
end
local removed = 0
for i = 3, #ARGV do
	local f = ARGV[i]
	local holder = redis.call('hget', KEYS[1], f)
	if holder then
		removed = removed + redis.call('hdel', KEYS[1], f, f .. ':' .. holder .. ':expire_time', f .. ':' .. holder .. ':lock_count')
	end
end
redis.call(ARGV[2], KEYS[2], ARGV[1])
return removed
`)

// groupRenewScript renews one owner's hold of a group (Redisson's 3.44+
// FastMultilockTask, one group per call): every value must still be the
// owner's; each expiry is raised to now+lease and G's TTL to the lease.
// KEYS: [G]. ARGV: [lease ms, now ms, owner field, f1..fk].
// Reply: 1 = renewed, 0 = G is gone or a value is not the owner's.
var groupRenewScript = core.NewScript("multilock.groupRenew", `
if redis.call('exists', KEYS[1]) == 0 then
	return 0
end
local lease = tonumber(ARGV[1])
local me = ARGV[3]
local renewed = lease + tonumber(ARGV[2])
for i = 4, #ARGV do
	if redis.call('hget', KEYS[1], ARGV[i]) ~= me then
		return 0
	end
	local ef = ARGV[i] .. ':' .. me .. ':expire_time'
	local cur = tonumber(redis.call('hget', KEYS[1], ef))
	if cur == nil or cur < renewed then
		redis.call('hset', KEYS[1], ef, renewed)
	end
end
if redis.call('pttl', KEYS[1]) < lease then
	redis.call('pexpire', KEYS[1], lease)
end
return 1
`)

// groupCountScript reads how many holds the owner has of every value: the
// smallest lock_count among them, 0 when a value is not the owner's.
// KEYS: [G]. ARGV: [owner field, f1..fk]. Reply: the count.
var groupCountScript = core.NewScript("multilock.groupCount", `
local least = nil
for i = 2, #ARGV do
	if redis.call('hget', KEYS[1], ARGV[i]) ~= ARGV[1] then
		return 0
	end
	local c = tonumber(redis.call('hget', KEYS[1], ARGV[i] .. ':' .. ARGV[1] .. ':lock_count')) or 0
	if least == nil or c < least then
		least = c
	end
end
return least or 0
`)

// groupIsLockedScript reports whether any value is held: it has an owner
// whose expiry is not before now (Redisson's isLocked).
// KEYS: [G]. ARGV: [now ms, f1..fk]. Reply: 1 or 0.
var groupIsLockedScript = core.NewScript("multilock.groupIsLocked", `
local now = tonumber(ARGV[1])
for i = 2, #ARGV do
	local holder = redis.call('hget', KEYS[1], ARGV[i])
	if holder then
		local expiry = tonumber(redis.call('hget', KEYS[1], ARGV[i] .. ':' .. holder .. ':expire_time'))
		if expiry ~= nil and expiry >= now then
			return 1
		end
	end
end
return 0
`)

// groupIsHeldScript reports whether the owner holds every value: it is the
// value's owner and its expiry is not before now. Redisson's
// isHeldByThread starts at the second value and does not compare the owner
// field; this one checks every value.
// KEYS: [G]. ARGV: [now ms, owner field, f1..fk]. Reply: 1 or 0.
var groupIsHeldScript = core.NewScript("multilock.groupIsHeld", `
if redis.call('exists', KEYS[1]) == 0 then
	return 0
end
local now = tonumber(ARGV[1])
for i = 3, #ARGV do
	if redis.call('hget', KEYS[1], ARGV[i]) ~= ARGV[2] then
		return 0
	end
	local expiry = tonumber(redis.call('hget', KEYS[1], ARGV[i] .. ':' .. ARGV[2] .. ':expire_time'))
	if expiry == nil or expiry < now then
		return 0
	end
end
return 1
`)
