-- ours: RedissonCountDownLatch.deleteAsync's effect (Redisson 3.52.0 and 4.7.0: same keys,
-- arguments, writes and messages), written anew.

if redis.call('del', KEYS[1]) == 0 then
	return 0
end
redis.call(ARGV[2], KEYS[2], ARGV[1])
return 1
