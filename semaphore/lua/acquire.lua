-- ours: RedissonSemaphore.tryAcquireAsync (Redisson 3.52.0 and 4.7.0: same keys, arguments,
-- writes and messages), which refuses a value that is not a number.

local v = redis.call('get', KEYS[1])
if v == false then
	return 0
end
local have = tonumber(v)
if have == nil then
	{{not_number}}
end
if have >= tonumber(ARGV[1]) then
	redis.call('decrby', KEYS[1], ARGV[1])
	return 1
end
return 0
