-- ours: RedissonPermitExpirableSemaphore.availablePermitsAsync (Redisson 3.52.0 and 4.7.0:
-- same keys, arguments, writes and messages), written anew.

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
