-- ours: RedissonFencedLock.tryLockInnerAsync (Redisson 3.52.0 and 4.7.0: same keys,
-- arguments, writes and messages), which also refuses another kind's hash and a token key
-- that holds no counter.

local n = redis.call('hlen', KEYS[1])
if n > 1 then
{{refuse_hash key=KEYS[1] want=fencedlock}}
end
if n == 0 or redis.call('hexists', KEYS[1], ARGV[2]) == 1 then
{{token_guard}}
	local token = redis.call('incr', KEYS[2])
	redis.call('hincrby', KEYS[1], ARGV[2], 1)
	redis.call('pexpire', KEYS[1], ARGV[1])
	return {-1, token}
end
return {redis.call('pttl', KEYS[1]), -1}
