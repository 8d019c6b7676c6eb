-- ours: RedissonFairLock.forceUnlockAsync (Redisson 3.52.0 and 4.7.0: same keys, arguments,
-- writes and messages), which leaves alone a key of another type or kind where Redisson's
-- DEL removes it.

local want = {'hash', 'list', 'zset'}
for i = 1, 3 do
	local t = redis.call('type', KEYS[i])['ok']
	if t ~= 'none' and t ~= want[i] then
		return {KEYS[i], t, want[i]}
	end
end
if redis.call('hlen', KEYS[1]) > 1 then
{{refuse_hash key=KEYS[1] want=fairlock}}
end
{{drop_stale_head now=ARGV[2]}}
if redis.call('del', KEYS[1]) == 1 then
	local head = redis.call('lindex', KEYS[2], 0)
	if head ~= false then
		redis.call(ARGV[3], KEYS[4] .. ':' .. head, ARGV[1])
	end
	return 1
end
return 0
