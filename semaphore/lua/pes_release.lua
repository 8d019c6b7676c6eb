-- ours: RedissonPermitExpirableSemaphore.releaseAsync (Redisson 3.52.0 and 4.7.0: same
-- keys, arguments, writes and messages), whose reply also says whether the permit was still
-- held.

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
