-- ours: RedissonReadLock.isLockedAsync's answer (Redisson 3.52.0 and 4.7.0), written anew.

local mode = redis.call('hget', KEYS[1], 'mode')
if mode == 'read' or (mode == 'write' and redis.call('hlen', KEYS[1]) > 2) then
	return 1
end
return 0
