-- ours: RedissonFairLock.tryLockInnerAsync's waiting script (Redisson 3.52.0 and 4.7.0:
-- same keys, arguments, writes and messages), which also refuses another kind's hash
-- (WRONGKIND).
{{own_hash}}{{drop_stale_head now=ARGV[4]}}{{take_or_reenter wait=ARGV[3]}}
if redis.call('zscore', KEYS[3], ARGV[2]) ~= false then
	return math.max(0, redis.call('pttl', KEYS[1]))
end
local last = redis.call('lindex', KEYS[2], -1)
local ttl
local lastScore = false
if last ~= false and last ~= ARGV[2] then
	lastScore = redis.call('zscore', KEYS[3], last)
end
if lastScore ~= false then
	ttl = tonumber(lastScore) - tonumber(ARGV[4])
else
	ttl = redis.call('pttl', KEYS[1])
end
local deadline = ttl + tonumber(ARGV[3]) + tonumber(ARGV[4])
if redis.call('zadd', KEYS[3], deadline, ARGV[2]) == 1 then
	redis.call('rpush', KEYS[2], ARGV[2])
end
return ttl
