-- ours: RedissonRateLimiter.expireAsync(Duration) over its five keys (Redisson 3.52.0 and
-- 4.7.0), written anew.

local any = 0
for _, k in ipairs(KEYS) do
	if redis.call('pexpire', k, ARGV[1]) == 1 then
		any = 1
	end
end
return any
