-- ours: RedissonPermitExpirableSemaphore.setPermitsAsync (Redisson 3.52.0 and 4.7.0: same
-- keys, arguments, writes and messages), written anew.

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
