-- ours: RedissonFairLock.unlockInnerAsync (Redisson 3.52.0 and 4.7.0: same keys, arguments,
-- writes and messages), which also records its reply in a latch so that a retried request
-- answers the same.

local replay = redis.call('get', KEYS[5])
if replay ~= false then
	return tonumber(replay)
end
{{drop_stale_head now=ARGV[4]}}
if redis.call('exists', KEYS[1]) == 0 then
	local head = redis.call('lindex', KEYS[2], 0)
	if head ~= false then
		redis.call(ARGV[5], KEYS[4] .. ':' .. head, ARGV[1])
	end
	redis.call('set', KEYS[5], 1, 'px', ARGV[6])
	return 1
end
if redis.call('hexists', KEYS[1], ARGV[3]) == 0 then
	return nil
end
local left = redis.call('hincrby', KEYS[1], ARGV[3], -1)
if left > 0 then
	redis.call('pexpire', KEYS[1], ARGV[2])
	redis.call('set', KEYS[5], 0, 'px', ARGV[6])
	return 0
end
redis.call('del', KEYS[1])
redis.call('set', KEYS[5], 1, 'px', ARGV[6])
local head = redis.call('lindex', KEYS[2], 0)
if head ~= false then
	redis.call(ARGV[5], KEYS[4] .. ':' .. head, ARGV[1])
end
return 1
