-- ours: RedissonSemaphore.addPermitsAsync (Redisson 3.52.0 and 4.7.0: same keys, arguments,
-- writes and messages), which refuses a value that is not a number and a total a Java int
-- cannot hold.

local v = redis.call('get', KEYS[1])
if v == false then
	v = 0
elseif tonumber(v) == nil then
	{{not_number}}
end
local total = tonumber(v) + tonumber(ARGV[1])
{{out_of_range v=total}}
redis.call('set', KEYS[1], total)
redis.call(ARGV[2], KEYS[2], total)
return total
