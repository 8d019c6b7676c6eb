-- ours: RedissonNonReentrantFairLock.tryLockInnerAsync's try-once script (Redisson 4.7.0:
-- same keys, arguments, calls and error reply).
{{drop_stale_head now=ARGV[3]}}
if redis.call('exists', KEYS[1]) == 0 and (redis.call('exists', KEYS[2]) == 0 or redis.call('lindex', KEYS[2], 0) == ARGV[2]) then
{{nonreentrant_take wait=ARGV[4]}}
end
if redis.call('hexists', KEYS[1], ARGV[2]) == 1 then
	return redis.error_reply(ARGV[5])
end
return 1
