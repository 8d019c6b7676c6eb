-- pick chooses the value and grants keys by the hash's type (Redisson keeps
-- the type as the string '0' or '1').
--
-- Before the script writes anything, pick refuses what would make a
-- command or Lua fail part way through (a grant written with an error for
-- a reply, a value key left by an acquire that then fails): a key of
-- another type than the script needs, a config field or a value that is no
-- integer. The refusal is a reply, not an error, so that the caller can
-- name the key or field at fault (WRONGTYPE does not say which key); see
-- ratelimit's fault for its shape. Checking inside the script leaves no gap between the
-- check and the use. Redisson's scripts have no such checks: on the same
-- keys they fail, sometimes after writing.
--
-- A config hash with none of the config's fields is another kind's (a
-- lock's, a read-write lock's, a group multi-lock's): pick ends the script
-- with the error WRONGKIND <kind> ratelimiter, where a missing config
-- would be "not initialized". The fields are read anyway, so an
-- initialized limiter pays nothing for the check.

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
{{refuse_hash key=KEYS[1] want=ratelimiter}}
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
