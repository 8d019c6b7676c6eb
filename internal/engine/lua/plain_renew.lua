-- ours: the renewal of RedissonBaseLock's LockTask (Redisson 3.52.0 and 4.7.0: PEXPIRE
-- while the owner's field exists), for a batch of locks in one call.

local out = {}
for i = 1, #KEYS do
	if redis.pcall('hexists', KEYS[i], ARGV[i + 1]) == 1 then
		redis.call('pexpire', KEYS[i], ARGV[1])
		out[i] = 1
	else
		out[i] = 0
	end
end
return out
