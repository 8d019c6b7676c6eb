-- ours: RedissonNonReentrantFairLock.tryLockInnerAsync's waiting script (Redisson 4.7.0:
-- same keys, arguments, calls and error reply).
{{drop_stale_head now=ARGV[4]}}
if redis.call('exists', KEYS[1]) == 0 and (redis.call('exists', KEYS[2]) == 0 or redis.call('lindex', KEYS[2], 0) == ARGV[2]) then
{{nonreentrant_take wait=ARGV[3]}}
end
if redis.call('hexists', KEYS[1], ARGV[2]) == 1 then
	return redis.error_reply(ARGV[5])
end
if redis.call('zscore', KEYS[3], ARGV[2]) ~= false then
	return math.max(0, redis.call('pttl', KEYS[1]))
end
local last = redis.call('lindex', KEYS[2], -1)
local ttl
if last ~= false and last ~= ARGV[2] and redis.call('zscore', KEYS[3], last) ~= false then
	ttl = tonumber(redis.call('zscore', KEYS[3], last)) - tonumber(ARGV[4])
else
	ttl = redis.call('pttl', KEYS[1])
end
local deadline = ttl + tonumber(ARGV[3]) + tonumber(ARGV[4])
if redis.call('zadd', KEYS[3], deadline, ARGV[2]) == 1 then
	redis.call('rpush', KEYS[2], ARGV[2])
end
return ttl
