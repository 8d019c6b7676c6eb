-- ours: RedissonReadLock.tryLockInnerAsync (Redisson 3.52.0 and 4.7.0: same keys,
-- arguments, writes and messages), which also refuses another kind's hash and answers -3,
-- not nil, when acquired.

if redis.call('exists', KEYS[1]) == 0 then
	redis.call('hset', KEYS[1], 'mode', 'read')
	redis.call('hset', KEYS[1], ARGV[2], 1)
	redis.call('set', KEYS[2] .. ':1', 1)
	redis.call('pexpire', KEYS[2] .. ':1', ARGV[1])
	redis.call('pexpire', KEYS[1], ARGV[1])
	return -3
end
local mode = redis.call('hget', KEYS[1], 'mode')
if mode == false then
{{refuse_hash key=KEYS[1] want=rwlock}}
end
if mode == 'read' or (mode == 'write' and redis.call('hexists', KEYS[1], ARGV[3]) == 1) then
	local k = redis.call('hincrby', KEYS[1], ARGV[2], 1)
	local key = KEYS[2] .. ':' .. k
	redis.call('set', key, 1)
	redis.call('pexpire', key, ARGV[1])
	redis.call('pexpire', KEYS[1], math.max(redis.call('pttl', KEYS[1]), tonumber(ARGV[1])))
	return -3
end
return redis.call('pttl', KEYS[1])
