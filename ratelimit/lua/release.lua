-- ours: RedissonRateLimiter.releaseAsync (Redisson 3.52.0 and 4.7.0: same keys, arguments,
-- writes and messages), which first refuses keys and fields that would make it fail after
-- writing.
{{pick}}
local currentValue = redis.call('get', valueName)
if currentValue == false then
	currentValue = tonumber(rate)
end
local newValue = tonumber(currentValue) + tonumber(ARGV[1])
if newValue > tonumber(rate) then
	newValue = tonumber(rate)
end
redis.call('set', valueName, newValue)
{{keep_alive}}
return 1
