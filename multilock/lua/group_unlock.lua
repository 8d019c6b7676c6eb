-- ours: RedissonFasterMultiLock.unlockInnerAsync (Redisson 3.52.0 and 4.7.0: same keys,
-- arguments, writes and messages), which also records its reply in a latch so that a
-- retried request answers the same.

local replay = redis.call('get', KEYS[3])
if replay ~= false then
	return tonumber(replay)
end
if redis.call('exists', KEYS[1]) == 0 then
	redis.call(ARGV[4], KEYS[2], ARGV[2])
	return nil
end
local me = ARGV[1]
local now = tonumber(ARGV[6])
local renewed = tonumber(ARGV[3]) + now
local failed, freed = false, true
for i = 7, #ARGV do
	local f = ARGV[i]
	local ef = f .. ':' .. me .. ':expire_time'
	local cf = f .. ':' .. me .. ':lock_count'
	local cur = tonumber(redis.call('hget', KEYS[1], ef))
	if cur ~= nil and cur >= now then
		if redis.call('hincrby', KEYS[1], cf, -1) <= 0 then
			redis.call('hdel', KEYS[1], ef, cf, f)
		else
			if cur < renewed then
				redis.call('hset', KEYS[1], ef, renewed)
			end
			freed = false
		end
	else
		freed, failed = false, true
	end
end
if failed then
	return nil
end
redis.call(ARGV[4], KEYS[2], ARGV[2])
if freed then
	redis.call('set', KEYS[3], 1, 'px', ARGV[5])
	return 1
end
redis.call('set', KEYS[3], 0, 'px', ARGV[5])
if tonumber(ARGV[3]) > redis.call('pttl', KEYS[1]) then
	redis.call('pexpire', KEYS[1], ARGV[3])
end
return 0
