-- ours: RedissonLock.tryLockInnerAsync (Redisson 3.52.0 and 4.7.0: same keys, arguments,
-- writes and messages), which also refuses another kind's hash and answers -3, not nil,
-- when acquired.

local n = redis.call('hlen', KEYS[1])
if n > 1 then
{{refuse_hash key=KEYS[1] want=lock}}
end
if n == 0 or redis.call('hexists', KEYS[1], ARGV[2]) == 1 then
	redis.call('hincrby', KEYS[1], ARGV[2], 1)
	redis.call('pexpire', KEYS[1], ARGV[1])
	return -3
end
return redis.call('pttl', KEYS[1])
