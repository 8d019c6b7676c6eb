-- ours: RedissonCountDownLatch.trySetCountAsync (Redisson 3.52.0 and 4.7.0: same keys,
-- arguments, writes and messages), which answers WRONGTYPE for a key of another type where
-- Redisson answers false.

if redis.call('exists', KEYS[1]) ~= 0 then
	if redis.call('type', KEYS[1]).ok ~= 'string' then
		return redis.error_reply('WRONGTYPE the latch key holds another type')
	end
	return 0
end
redis.call('set', KEYS[1], ARGV[2])
redis.call(ARGV[3], KEYS[2], ARGV[1])
return 1
