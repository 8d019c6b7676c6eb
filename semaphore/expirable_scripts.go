package semaphore

import "github.com/goredisson/redisson/internal/core"

// The permit-expirable semaphore's scripts keep the contract of Redisson
// 3.23.4+'s RedissonPermitExpirableSemaphore (protocol §9): the same KEYS and
// ARGV order, the raw 16-byte ids as zset members, the string comparison
// with the non-expiring score, and the same messages, so that a Java
// service's RPermitExpirableSemaphore of the same name shares the permits.

// noLease is the score of a permit without a lease. The acquire script
// compares it as a string with the earliest score (§17 quirk 9): it must be
// sent exactly as these digits.
const noLease = "922337203685477"

// reclaim returns expired permits to the pool and publishes the new count
// when it is positive: every script but the releases starts with it, so
// an expired permit comes back the next time anyone looks. %s are the
// timeout zset, the limit (a Lua expression), the semaphore key, the "now"
// argument, the publish command argument and the channel key.
func reclaim(zset, now, limit, key, publish, channel string) string {
	return `
local expired = redis.call('zrangebyscore', ` + zset + `, 0, ` + now + `, 'limit', 0, ` + limit + `)
if #expired > 0 then
	redis.call('zrem', ` + zset + `, unpack(expired))
	local v = redis.call('incrby', ` + key + `, #expired)
	if tonumber(v) > 0 then
		redis.call(` + publish + `, ` + channel + `, v)
	end
end
`
}

// expAcquireScript takes ARGV[1] permits under the ids ARGV[6..] when that
// many are available, after reclaiming at most as many expired ones.
// KEYS: [name, timeout zset, channel].
// ARGV: [n, expiry, now, noLease, PUBLISH|SPUBLISH, id1 … idn].
// Reply: "OK" = taken; ":<ms>" = not enough, the earliest lease ends at
// <ms>; nil = not enough and no lease will end.
var expAcquireScript = core.NewScript("pes.acquire", reclaim("KEYS[2]", "ARGV[3]", "ARGV[1]", "KEYS[1]", "ARGV[5]", "KEYS[3]")+`
local v = redis.call('get', KEYS[1])
if v ~= false and tonumber(v) >= tonumber(ARGV[1]) then
	redis.call('decrby', KEYS[1], ARGV[1])
	for i = 6, #ARGV do
		redis.call('zadd', KEYS[2], ARGV[2], ARGV[i])
	end
	local ttl = redis.call('pttl', KEYS[1])
	if ttl > 0 then
		redis.call('pexpire', KEYS[2], ttl)
	end
	return 'OK'
end
local first = redis.call('zrange', KEYS[2], 0, 0, 'WITHSCORES')
if first[1] ~= nil and first[2] ~= ARGV[4] then
	return ':' .. tostring(first[2])
end
return nil
`)

// expReleaseScript gives one permit back by id and publishes the new count.
// An expired permit still in the zset goes back to the pool too, but the
// reply says it was no longer held.
// KEYS: [name, channel, timeout zset]. ARGV: [id, 1, now, PUBLISH|SPUBLISH].
// Reply: 1 = released; 0 = unknown, already released or expired.
var expReleaseScript = core.NewScript("pes.release", `
local expiry = redis.call('zscore', KEYS[3], ARGV[1])
local removed = redis.call('zrem', KEYS[3], ARGV[1])
if tonumber(removed) ~= 1 then
	return 0
end
local v = redis.call('incrby', KEYS[1], ARGV[2])
redis.call(ARGV[4], KEYS[2], v)
if tonumber(expiry) <= tonumber(ARGV[3]) then
	return 0
end
return 1
`)

// expAvailableScript reclaims every expired permit and returns the
// available count. KEYS: [name, timeout zset, channel].
// ARGV: [now, PUBLISH|SPUBLISH].
var expAvailableScript = core.NewScript("pes.availablePermits", `
local expired = redis.call('zrangebyscore', KEYS[2], 0, ARGV[1], 'limit', 0, -1)
if #expired > 0 then
	redis.call('zrem', KEYS[2], unpack(expired))
	local v = redis.call('incrby', KEYS[1], #expired)
	if tonumber(v) > 0 then
		redis.call(ARGV[2], KEYS[3], v)
	end
	return v
end
local v = redis.call('get', KEYS[1])
return v == false and 0 or v
`)

// expPermitsScript reclaims and returns available + acquired (0 when the
// semaphore does not exist). KEYS, ARGV: as expAvailableScript.
var expPermitsScript = core.NewScript("pes.getPermits", reclaim("KEYS[2]", "ARGV[1]", "-1", "KEYS[1]", "ARGV[2]", "KEYS[3]")+`
local available = redis.call('get', KEYS[1])
if available == false then
	return 0
end
return tonumber(available) + redis.call('zcount', KEYS[2], 0, '+inf')
`)

// expAcquiredScript reclaims and returns the number of permits held.
// KEYS, ARGV: as expAvailableScript.
var expAcquiredScript = core.NewScript("pes.acquiredPermits", reclaim("KEYS[2]", "ARGV[1]", "-1", "KEYS[1]", "ARGV[2]", "KEYS[3]")+`
return redis.call('zcount', KEYS[2], 0, '+inf')
`)

// expSetScript makes the total (available + acquired) ARGV[1] by moving the
// available count, and publishes the total when it changed; no reclaim, as
// in Redisson. KEYS: [name, channel, timeout zset]. ARGV: [n, PUBLISH|SPUBLISH].
var expSetScript = core.NewScript("pes.setPermits", `
local available = redis.call('get', KEYS[1])
if available == false then
	redis.call('set', KEYS[1], ARGV[1])
	redis.call(ARGV[2], KEYS[2], ARGV[1])
	return 1
end
local total = redis.call('zcount', KEYS[3], 0, '+inf') + tonumber(available)
if total == tonumber(ARGV[1]) then
	return 1
end
redis.call('incrby', KEYS[1], tonumber(ARGV[1]) - total)
redis.call(ARGV[2], KEYS[2], ARGV[1])
return 1
`)

// expAddScript adds (or removes) available permits with SET and publishes
// the delta when it is positive (not the total, unlike RSemaphore). Unlike
// Redisson's, it refuses, writing nothing, a total a Java int cannot hold.
// KEYS: [name, channel]. ARGV: [delta, PUBLISH|SPUBLISH].
var expAddScript = core.NewScript("pes.addPermits", `
local v = redis.call('get', KEYS[1])
if v == false then
	v = 0
end
local total = tonumber(v) + tonumber(ARGV[1])
`+outOfRange("total")+`
redis.call('set', KEYS[1], total)
if tonumber(ARGV[1]) > 0 then
	redis.call(ARGV[2], KEYS[2], ARGV[1])
end
return 1
`)

// expUpdateLeaseScript reclaims, then gives a held permit a new expiry.
// KEYS: [name, timeout zset, channel]. ARGV: [id, expiry, now, PUBLISH|SPUBLISH].
// Reply: 1 = updated, 0 = not held.
var expUpdateLeaseScript = core.NewScript("pes.updateLeaseTime", reclaim("KEYS[2]", "ARGV[3]", "-1", "KEYS[1]", "ARGV[4]", "KEYS[3]")+`
if redis.call('zscore', KEYS[2], ARGV[1]) ~= false then
	redis.call('zadd', KEYS[2], ARGV[2], ARGV[1])
	return 1
end
return 0
`)

// expLeaseScript reclaims, then returns a held permit's remaining lease in
// ms: -1 without a lease, -2 when it is not held (Redisson 3.41+ returns 0
// there and its Java side throws; -2 keeps "not held" apart from a lease
// that ends now). KEYS: [name, timeout zset, channel].
// ARGV: [id, noLease, now, PUBLISH|SPUBLISH].
var expLeaseScript = core.NewScript("pes.getLeaseTime", reclaim("KEYS[2]", "ARGV[3]", "-1", "KEYS[1]", "ARGV[4]", "KEYS[3]")+`
local score = redis.call('zscore', KEYS[2], ARGV[1])
if score == false then
	return -2
end
if score == ARGV[2] then
	return -1
end
return tonumber(score) - tonumber(ARGV[3])
`)
