-- ours: RedissonCountDownLatch.countDownAsync's effect (Redisson 3.52.0 and 4.7.0: same
-- keys, arguments, writes and messages), written anew.

local left = redis.call('decr', KEYS[1])
if left <= 0 then
	redis.call('del', KEYS[1])
end
if left == 0 then
	redis.call(ARGV[2], KEYS[2], ARGV[1])
end
return left
