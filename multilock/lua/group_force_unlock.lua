-- ours: RedissonFasterMultiLock.forceUnlockAsync (Redisson 3.52.0 and 4.7.0: same keys,
-- arguments, writes and messages), which skips a value nobody holds (Redisson's fails) and
-- leaves another kind's hash alone.

local n = redis.call('hlen', KEYS[1])
if n > 0 then
{{group_own_hash}}
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
