-- ours: RedissonReadLock.unlockInnerAsync (Redisson 3.52.0 and 4.7.0: same keys, arguments,
-- writes and messages), which also records its reply in a latch so that a retried request
-- answers the same.

local replay = redis.call('get', KEYS[5])
if replay ~= false then
	return tonumber(replay)
end
local mode = redis.call('hget', KEYS[1], 'mode')
if mode == false then
	redis.call(ARGV[3], KEYS[2], ARGV[1])
	redis.call('set', KEYS[5], 1, 'px', ARGV[4])
	return nil
end
if redis.call('hexists', KEYS[1], ARGV[2]) == 0 then
	return nil
end
local c = redis.call('hincrby', KEYS[1], ARGV[2], -1)
if c == 0 then
	redis.call('hdel', KEYS[1], ARGV[2])
end
redis.call('del', KEYS[3] .. ':' .. (c + 1))
if redis.call('hlen', KEYS[1]) > 1 then
	local longest = -3
	for _, f in ipairs(redis.call('hkeys', KEYS[1])) do
		local n = tonumber(redis.call('hget', KEYS[1], f))
		if type(n) == 'number' then
			for k = n, 1, -1 do
				longest = math.max(longest, redis.call('pttl', KEYS[4] .. ':' .. f .. ':rwlock_timeout:' .. k))
			end
		end
	end
	if longest > 0 then
		redis.call('pexpire', KEYS[1], longest)
		redis.call('set', KEYS[5], 0, 'px', ARGV[4])
		return 0
	end
	if mode == 'write' then
		redis.call('set', KEYS[5], 0, 'px', ARGV[4])
		return 0
	end
end
redis.call('del', KEYS[1])
redis.call(ARGV[3], KEYS[2], ARGV[1])
redis.call('set', KEYS[5], 1, 'px', ARGV[4])
return 1
