-- ours: RedissonReadLock/RedissonWriteLock.forceUnlockAsync (Redisson 3.52.0 and 4.7.0:
-- same keys, arguments, writes and messages), which says so when the hash is another
-- kind's.

local mode = redis.call('hget', KEYS[1], 'mode')
if mode == ARGV[3] then
	redis.call('del', KEYS[1])
	redis.call(ARGV[2], KEYS[2], ARGV[1])
	return 1
end
if mode == false and redis.call('exists', KEYS[1]) == 1 then
{{refuse_hash key=KEYS[1] want=rwlock}}
end
return 0
