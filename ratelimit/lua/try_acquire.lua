-- ours: RedissonRateLimiter.tryAcquireAsync (Redisson 3.52.0 and 4.7.0: same keys,
-- arguments, writes and messages), which first refuses keys and fields that would make it
-- fail after writing.
{{pick}}
assert(tonumber(rate) >= tonumber(ARGV[1]), 'Requested permits amount cannot exceed defined rate')
local currentValue = redis.call('get', valueName)
local res
if currentValue ~= false then
	local cutoff = tonumber(ARGV[2]) - interval
	local expired = redis.call('zrangebyscore', permitsName, 0, cutoff)
	local released = 0
	for _, v in ipairs(expired) do
		local _, permits = struct.unpack('Bc0I', v)
		released = released + permits
	end
	if released > 0 then
		redis.call('zremrangebyscore', permitsName, 0, cutoff)
		if tonumber(currentValue) + released > tonumber(rate) then
			local used = 0
			for _, v in ipairs(redis.call('zrange', permitsName, 0, -1)) do
				local _, permits = struct.unpack('Bc0I', v)
				used = used + permits
			end
			currentValue = tonumber(rate) - used
		else
			currentValue = tonumber(currentValue) + released
		end
		redis.call('set', valueName, currentValue)
	end
	if tonumber(currentValue) < tonumber(ARGV[1]) then
		local first = redis.call('zrange', permitsName, 0, 0, 'withscores')
		res = 3 + interval - (tonumber(ARGV[2]) - tonumber(first[2]))
	else
		redis.call('zadd', permitsName, ARGV[2], struct.pack('Bc0I', string.len(ARGV[3]), ARGV[3], ARGV[1]))
		redis.call('decrby', valueName, ARGV[1])
		res = nil
	end
else
	redis.call('set', valueName, rate)
	redis.call('zadd', permitsName, ARGV[2], struct.pack('Bc0I', string.len(ARGV[3]), ARGV[3], ARGV[1]))
	redis.call('decrby', valueName, ARGV[1])
	res = nil
end
{{keep_alive}}
return res
