-- ours: RedissonRateLimiter.availablePermitsAsync (Redisson 3.52.0 and 4.7.0: same keys,
-- arguments, writes and messages), which first refuses keys and fields that would make it
-- fail after writing.
{{pick}}
local currentValue = redis.call('get', valueName)
if currentValue == false then
	redis.call('set', valueName, rate)
	return tonumber(rate)
end
local cutoff = tonumber(ARGV[1]) - interval
local released = 0
for _, v in ipairs(redis.call('zrangebyscore', permitsName, 0, cutoff)) do
	local _, permits = struct.unpack('Bc0I', v)
	released = released + permits
end
if released > 0 then
	redis.call('zremrangebyscore', permitsName, 0, cutoff)
	currentValue = tonumber(currentValue) + released
	redis.call('set', valueName, currentValue)
end
return tonumber(currentValue)
