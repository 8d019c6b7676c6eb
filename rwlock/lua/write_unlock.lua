-- ours: RedissonWriteLock.unlockInnerAsync (Redisson 3.52.0 and 4.7.0: same keys,
-- arguments, writes and messages), which also records its reply in a latch so that a
-- retried request answers the same.

local replay = redis.call('get', KEYS[3])
if replay ~= false then
	return tonumber(replay)
end
local mode = redis.call('hget', KEYS[1], 'mode')
if mode == false then
	redis.call(ARGV[4], KEYS[2], ARGV[1])
	redis.call('set', KEYS[3], 1, 'px', ARGV[5])
	return nil
end
if mode ~= 'write' or redis.call('hexists', KEYS[1], ARGV[3]) == 0 then
	return nil
end
local c = redis.call('hincrby', KEYS[1], ARGV[3], -1)
if c > 0 then
	redis.call('pexpire', KEYS[1], ARGV[2])
	redis.call('set', KEYS[3], 0, 'px', ARGV[5])
	return 0
end
redis.call('hdel', KEYS[1], ARGV[3])
if redis.call('hlen', KEYS[1]) == 1 then
	redis.call('del', KEYS[1])
	redis.call(ARGV[4], KEYS[2], ARGV[1])
else
	redis.call('hset', KEYS[1], 'mode', 'read')
end
redis.call('set', KEYS[3], 1, 'px', ARGV[5])
return 1
