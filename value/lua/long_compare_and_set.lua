-- ours: RedissonAtomicLong.compareAndSetAsync (Redisson 3.52.0 and 4.7.0): the same Redis
-- calls in the same order, written anew.

local cur = redis.call('get', KEYS[1])
if cur == ARGV[1] or (cur == false and tonumber(ARGV[1]) == 0) then
	redis.call('set', KEYS[1], ARGV[2])
	return 1
end
return 0