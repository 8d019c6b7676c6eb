-- ours: RedissonIdGenerator's block allocation in handleIdRequests (Redisson 3.52.0 and 4.7.0):
-- the allocation size (5000 when absent, then stored), the block's first id (1 when absent,
-- after an INCR), then INCRBY by the size; returns {first id, size}, written anew.

local size = redis.call('get', KEYS[2])
if size == false then
	size = 5000
	redis.call('set', KEYS[2], size)
end
local first = redis.call('get', KEYS[1])
if first == false then
	redis.call('incr', KEYS[1])
	first = 1
end
redis.call('incrby', KEYS[1], size)
return {tostring(first), tostring(size)}
