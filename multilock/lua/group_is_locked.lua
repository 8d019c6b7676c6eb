-- ours: RedissonFasterMultiLock.isLockedAsync's answer (Redisson 3.52.0 and 4.7.0), written
-- anew.

local now = tonumber(ARGV[1])
for i = 2, #ARGV do
	local holder = redis.call('hget', KEYS[1], ARGV[i])
	if holder then
		local expiry = tonumber(redis.call('hget', KEYS[1], ARGV[i] .. ':' .. holder .. ':expire_time'))
		if expiry ~= nil and expiry >= now then
			return 1
		end
	end
end
return 0
