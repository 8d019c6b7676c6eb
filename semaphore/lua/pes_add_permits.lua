-- ours: RedissonPermitExpirableSemaphore.addPermitsAsync (Redisson 3.52.0 and 4.7.0: same
-- keys, arguments, writes and messages), which refuses a total a Java int cannot hold.

local v = redis.call('get', KEYS[1])
if v == false then
	v = 0
end
local total = tonumber(v) + tonumber(ARGV[1])
{{out_of_range v=total}}
redis.call('set', KEYS[1], total)
if tonumber(ARGV[1]) > 0 then
	redis.call(ARGV[2], KEYS[2], ARGV[1])
end
return 1
