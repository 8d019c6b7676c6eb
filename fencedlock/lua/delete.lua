-- ours: RedissonFencedLock.deleteAsync's effect (Redisson 3.52.0 and 4.7.0: the lock and
-- its token key deleted, the unlock message published), leaving another kind's key alone.

local t = redis.call('type', KEYS[1])['ok']
if t ~= 'none' and t ~= 'hash' then
	return t
end
if t == 'hash' and redis.call('hlen', KEYS[1]) > 1 then
{{refuse_hash key=KEYS[1] want=fencedlock}}
end
local locked = redis.call('del', KEYS[1])
local counted = redis.call('del', KEYS[2])
if locked == 1 then
	redis.call(ARGV[2], KEYS[3], ARGV[1])
end
if locked + counted > 0 then
	return 1
end
return 0
