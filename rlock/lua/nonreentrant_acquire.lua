-- ours: RedissonNonReentrantLock.tryLockInnerAsync (Redisson 4.7.0: same keys, arguments,
-- calls and error reply), which answers -3, not nil, when acquired.

if redis.call('exists', KEYS[1]) == 0 then
	redis.call('hincrby', KEYS[1], ARGV[2], 1)
	redis.call('pexpire', KEYS[1], ARGV[1])
	return -3
end
if redis.call('hexists', KEYS[1], ARGV[2]) == 1 then
	return redis.error_reply(ARGV[3])
end
return redis.call('pttl', KEYS[1])
