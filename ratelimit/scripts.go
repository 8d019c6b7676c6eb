package ratelimit

import "github.com/goredisson/redisson/internal/core"

// The scripts keep Redisson 3.52's RedissonRateLimiter contract (protocol
// §13.2): the config hash N {rate, interval, type, keepAliveTime}, the
// remaining permits in {N}:value (or {N}:value:<client id> for PER_CLIENT),
// the grants zset {N}:permits (or …:<client id>) whose members are Lua
// struct 'Bc0I' (length byte 16, 16 random bytes, uint32 LE permits) scored
// with the granting client's ms clock. A Java RRateLimiter of the same name
// therefore counts a Go client's grants and the other way round.
//
// Every script takes KEYS = [N, {N}:value, {N}:value:CID, {N}:permits,
// {N}:permits:CID] and picks the pair the hash's type names. A script that
// starts with pick may answer with one of its refusals instead of the
// reply it names: a table (see fault) or the error WRONGKIND <kind>
// ratelimiter.

// pick chooses the value and grants keys by the hash's type (Redisson keeps
// the type as the string '0' or '1').
//
// Before the script writes anything, pick refuses what would make a
// command or Lua fail part way through (a grant written with an error for
// a reply, a value key left by an acquire that then fails): a key of
// another type than the script needs, a config field or a value that is no
// integer. The refusal is a reply, not an error, so that the caller can
// name the key or field at fault (WRONGTYPE does not say which key); see
// fault for its shape. Checking inside the script leaves no gap between the
// check and the use. Redisson's scripts have no such checks: on the same
// keys they fail, sometimes after writing.
//
// A config hash with none of the config's fields is another kind's (a
// lock's, a read-write lock's, a group multi-lock's): pick ends the script
// with the error WRONGKIND <kind> ratelimiter, where a missing config
// would be "not initialized". The fields are read anyway, so an
// initialized limiter pays nothing for the check.
var pick = `
local function integer(v)
	return string.match(v, '^[+-]?%d+$') ~= nil
end
local configType = redis.call('type', KEYS[1])['ok']
if configType ~= 'hash' and configType ~= 'none' then
	return {'key', KEYS[1], configType, 'hash'}
end
local rate = redis.call('hget', KEYS[1], 'rate')
local interval = redis.call('hget', KEYS[1], 'interval')
local type = redis.call('hget', KEYS[1], 'type')
if configType == 'hash' and rate == false and interval == false and type == false and redis.call('hexists', KEYS[1], 'keepAliveTime') == 0 then
` + core.RefuseHash("KEYS[1]", core.KindRateLimiter) + `
end
assert(rate ~= false and interval ~= false and type ~= false, 'RateLimiter is not initialized')
local fields = {'type', type, 'rate', rate, 'interval', interval, 'keepAliveTime', redis.call('hget', KEYS[1], 'keepAliveTime')}
for i = 1, #fields, 2 do
	local v = fields[i + 1]
	if v ~= false and not integer(v) then
		return {'field', fields[i], v}
	end
end
local valueName = KEYS[2]
local permitsName = KEYS[4]
if type == '1' then
	valueName = KEYS[3]
	permitsName = KEYS[5]
end
local valueType = redis.call('type', valueName)['ok']
if valueType ~= 'string' and valueType ~= 'none' then
	return {'key', valueName, valueType, 'string'}
end
local permitsType = redis.call('type', permitsName)['ok']
if permitsType ~= 'zset' and permitsType ~= 'none' then
	return {'key', permitsName, permitsType, 'zset'}
end
if valueType == 'string' then
	local v = redis.call('get', valueName)
	if not integer(v) then
		return {'value', valueName, v}
	end
end
`

// keepAlive gives the state keys keepAliveTime (3.38+) when it is set, and
// otherwise the hash's own TTL, so that they never outlive the config.
const keepAlive = `
local keepAliveTime = redis.call('hget', KEYS[1], 'keepAliveTime')
if keepAliveTime ~= false and tonumber(keepAliveTime) > 0 then
	redis.call('pexpire', KEYS[1], keepAliveTime)
	redis.call('pexpire', valueName, keepAliveTime)
	redis.call('pexpire', permitsName, keepAliveTime)
else
	local ttl = redis.call('pttl', KEYS[1])
	if ttl > 0 then
		redis.call('pexpire', valueName, ttl)
		redis.call('pexpire', permitsName, ttl)
	end
end
`

// acquireScript grants ARGV[1] permits if the window has them. Grants older
// than the interval are dropped first and their permits added back (clamped
// so that the value never exceeds rate minus the grants still in the
// window).
// ARGV: [permits, now ms, 16 random bytes].
// Reply: nil = granted; n = not enough, retry in n ms (when the oldest grant
// leaves the window, plus 3 ms).
var acquireScript = core.NewScript("ratelimit.tryAcquire", pick+`
assert(tonumber(rate) >= tonumber(ARGV[1]), 'Requested permits amount cannot exceed defined rate')
local currentValue = redis.call('get', valueName)
local res
if currentValue ~= false then
	local cutoff = tonumber(ARGV[2]) - interval
	local expired = redis.call('zrangebyscore', permitsName, 0, cutoff)
	local released = 0
	for _, v in ipairs(expired) do
		local _, permits = struct.unpack('Bc0I', v)
		released = released + permits
	end
	if released > 0 then
		redis.call('zremrangebyscore', permitsName, 0, cutoff)
		if tonumber(currentValue) + released > tonumber(rate) then
			local used = 0
			for _, v in ipairs(redis.call('zrange', permitsName, 0, -1)) do
				local _, permits = struct.unpack('Bc0I', v)
				used = used + permits
			end
			currentValue = tonumber(rate) - used
		else
			currentValue = tonumber(currentValue) + released
		end
		redis.call('set', valueName, currentValue)
	end
	if tonumber(currentValue) < tonumber(ARGV[1]) then
		local first = redis.call('zrange', permitsName, 0, 0, 'withscores')
		res = 3 + interval - (tonumber(ARGV[2]) - tonumber(first[2]))
	else
		redis.call('zadd', permitsName, ARGV[2], struct.pack('Bc0I', string.len(ARGV[3]), ARGV[3], ARGV[1]))
		redis.call('decrby', valueName, ARGV[1])
		res = nil
	end
else
	redis.call('set', valueName, rate)
	redis.call('zadd', permitsName, ARGV[2], struct.pack('Bc0I', string.len(ARGV[3]), ARGV[3], ARGV[1]))
	redis.call('decrby', valueName, ARGV[1])
	res = nil
end
`+keepAlive+`
return res
`)

// undoGrantScript takes back the grant of ARGV[1] permits with id ARGV[2]
// (acquireScript's ARGV[3]) that nobody uses: its caller gave up while it
// was on the wire, or its reply was lost. The grant leaves the window and
// its permits go back to the value (clamped at the rate), so Java and Go
// peers see the window as if it had not been made. A grant that is not in
// the window (it never ran, or it has left the window and been counted
// back) changes nothing, so the script may run more than once. Not
// Redisson's: it has no such undo.
// ARGV: [permits, id]. Reply: 1 = taken back, 0 = no such grant.
var undoGrantScript = core.NewScript("ratelimit.undoGrant", pick+`
local member = struct.pack('Bc0I', string.len(ARGV[2]), ARGV[2], ARGV[1])
if redis.call('zrem', permitsName, member) == 0 then
	return 0
end
local currentValue = redis.call('get', valueName)
if currentValue ~= false then
	local newValue = tonumber(currentValue) + tonumber(ARGV[1])
	if newValue > tonumber(rate) then
		newValue = tonumber(rate)
	end
	redis.call('set', valueName, newValue)
end
`+keepAlive+`
return 1
`)

// availableScript returns the permits left in the window, adding back the
// permits of grants that left it (not clamped, as in Redisson); an absent
// value key is created at the full rate.
// ARGV: [now ms]. Reply: the permits.
var availableScript = core.NewScript("ratelimit.availablePermits", pick+`
local currentValue = redis.call('get', valueName)
if currentValue == false then
	redis.call('set', valueName, rate)
	return tonumber(rate)
end
local cutoff = tonumber(ARGV[1]) - interval
local released = 0
for _, v in ipairs(redis.call('zrangebyscore', permitsName, 0, cutoff)) do
	local _, permits = struct.unpack('Bc0I', v)
	released = released + permits
end
if released > 0 then
	redis.call('zremrangebyscore', permitsName, 0, cutoff)
	currentValue = tonumber(currentValue) + released
	redis.call('set', valueName, currentValue)
end
return tonumber(currentValue)
`)

// releaseScript adds permits to the value, capped at the rate (an absent
// value counts as the full rate), leaving the grants alone, as Redisson
// 3.52 does. ARGV: [permits].
var releaseScript = core.NewScript("ratelimit.release", pick+`
local currentValue = redis.call('get', valueName)
if currentValue == false then
	currentValue = tonumber(rate)
end
local newValue = tonumber(currentValue) + tonumber(ARGV[1])
if newValue > tonumber(rate) then
	newValue = tonumber(rate)
end
redis.call('set', valueName, newValue)
`+keepAlive+`
return 1
`)

// configOwned refuses, before the config is written, a hash under the
// name with none of the config's fields: another kind's (Redisson's HSETNX
// would add the config's fields to it).
var configOwned = `
if redis.call('exists', KEYS[1]) == 1 then
	local c = redis.call('hmget', KEYS[1], 'rate', 'interval', 'type', 'keepAliveTime')
	if not (c[1] or c[2] or c[3] or c[4]) then
` + core.RefuseHash("KEYS[1]", core.KindRateLimiter) + `
	end
end
`

// deleteScript deletes the limiter's keys unless the name holds another
// kind's hash (Redisson's delete is a plain DEL, which would delete a lock
// held under the same name).
// KEYS: [N, value, client value, permits, client permits]. ARGV: [].
// Reply: the number of keys deleted; the error WRONGKIND <kind>
// ratelimiter when another kind owns the hash (nothing deleted), WRONGTYPE
// when the name holds another Redis type.
var deleteScript = core.NewScript("ratelimit.delete", configOwned+`
return redis.call('del', unpack(KEYS))
`)

// trySetScript writes the config if there is none, field by field with
// HSETNX as Redisson does, and gives the hash keepAliveTime.
// KEYS: [N]. ARGV: [rate, interval ms, type, keepAliveTime ms].
// Reply: 1 = set, 0 = there was a config; the error WRONGKIND <kind>
// ratelimiter when another kind owns the hash (nothing written).
var trySetScript = core.NewScript("ratelimit.trySetRate", configOwned+`
redis.call('hsetnx', KEYS[1], 'rate', ARGV[1])
redis.call('hsetnx', KEYS[1], 'interval', ARGV[2])
redis.call('hsetnx', KEYS[1], 'keepAliveTime', ARGV[4])
local res = redis.call('hsetnx', KEYS[1], 'type', ARGV[3])
if res == 1 and tonumber(ARGV[4]) > 0 then
	redis.call('pexpire', KEYS[1], ARGV[4])
end
return res
`)

// setScript overwrites the config and deletes the state of the new type
// (this client's keys for PER_CLIENT; other clients keep theirs, as in
// Redisson). ARGV: as trySetScript. Reply: 1; the error WRONGKIND <kind>
// ratelimiter when another kind owns the hash (nothing written).
var setScript = core.NewScript("ratelimit.setRate", configOwned+`
local valueName = KEYS[2]
local permitsName = KEYS[4]
if ARGV[3] == '1' then
	valueName = KEYS[3]
	permitsName = KEYS[5]
end
redis.call('hset', KEYS[1], 'rate', ARGV[1])
redis.call('hset', KEYS[1], 'interval', ARGV[2])
redis.call('hset', KEYS[1], 'type', ARGV[3])
redis.call('hset', KEYS[1], 'keepAliveTime', ARGV[4])
if tonumber(ARGV[4]) > 0 then
	redis.call('pexpire', KEYS[1], ARGV[4])
end
redis.call('del', valueName, permitsName)
return 1
`)

// expireScript gives every key of the limiter that exists a TTL, as
// Redisson's expire(Duration) over its five keys. ARGV: [ttl ms].
// Reply: 1 when any key got it.
var expireScript = core.NewScript("ratelimit.expire", `
local any = 0
for _, k in ipairs(KEYS) do
	if redis.call('pexpire', k, ARGV[1]) == 1 then
		any = 1
	end
end
return any
`)
