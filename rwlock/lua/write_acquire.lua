-- ours: RedissonWriteLock.tryLockInnerAsync (Redisson 3.52.0 and 4.7.0: same keys,
-- arguments, writes and messages), which also refuses another kind's hash and answers -3,
-- not nil, when acquired.

if redis.call('exists', KEYS[1]) == 0 then
	redis.call('hset', KEYS[1], 'mode', 'write')
	redis.call('hset', KEYS[1], ARGV[2], 1)
	redis.call('pexpire', KEYS[1], ARGV[1])
	return -3
end
local mode = redis.call('hget', KEYS[1], 'mode')
if mode == false then
{{refuse_hash key=KEYS[1] want=rwlock}}
end
if mode == 'write' and redis.call('hexists', KEYS[1], ARGV[2]) == 1 then
	redis.call('hincrby', KEYS[1], ARGV[2], 1)
	redis.call('pexpire', KEYS[1], redis.call('pttl', KEYS[1]) + tonumber(ARGV[1]))
	return -3
end
return redis.call('pttl', KEYS[1])
