-- ours: RedissonAtomicDouble.compareAndSetAsync (Redisson 3.52.0 and 4.7.0): GET, then SET when
-- the numbers are equal (an absent value counts as 0), written anew.

local cur = redis.call('get', KEYS[1])
if (cur == false and tonumber(ARGV[1]) == 0) or (tonumber(cur) == tonumber(ARGV[1])) then
	redis.call('set', KEYS[1], ARGV[2])
	return 1
end
return 0
