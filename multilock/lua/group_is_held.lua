-- ours: RedissonFasterMultiLock.isHeldByThread (Redisson 3.52.0 and 4.7.0) starts at the
-- second value and does not compare the owner; this one checks every value.

if redis.call('exists', KEYS[1]) == 0 then
	return 0
end
local now = tonumber(ARGV[1])
for i = 3, #ARGV do
	if redis.call('hget', KEYS[1], ARGV[i]) ~= ARGV[2] then
		return 0
	end
	local expiry = tonumber(redis.call('hget', KEYS[1], ARGV[i] .. ':' .. ARGV[2] .. ':expire_time'))
	if expiry == nil or expiry < now then
		return 0
	end
end
return 1
