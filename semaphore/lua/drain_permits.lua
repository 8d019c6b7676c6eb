-- ours: RedissonSemaphore.drainPermitsAsync (Redisson 3.52.0 and 4.7.0: same keys,
-- arguments, writes and messages), which refuses a value that is not a number where
-- Redisson's writes over it.

local v = redis.call('get', KEYS[1])
if v == false then
	return 0
end
if tonumber(v) == nil then
	{{not_number}}
end
redis.call('set', KEYS[1], 0)
return v
