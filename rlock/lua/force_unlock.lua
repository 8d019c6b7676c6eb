-- ours: RedissonLock.forceUnlockAsync (Redisson 3.52.0 and 4.7.0: same keys, arguments,
-- writes and messages), which leaves alone a key of another type or kind where Redisson's
-- DEL removes it.

local t = redis.call('type', KEYS[1])['ok']
if t == 'none' then
	return 0
end
if t ~= 'hash' then
	return t
end
if redis.call('hlen', KEYS[1]) > 1 then
{{refuse_hash key=KEYS[1] want=lock}}
end
redis.call('del', KEYS[1])
redis.call(ARGV[2], KEYS[2], ARGV[1])
return 1
