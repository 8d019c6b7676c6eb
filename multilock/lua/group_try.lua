-- ours: RedissonFasterMultiLock.tryLockOnceInnerAsync (Redisson 3.52.0 and 4.7.0: same
-- keys, arguments, writes and messages), which also refuses another kind's hash and treats
-- a half-written value as free.

local now = tonumber(ARGV[1])
local lease = tonumber(ARGV[2])
local me = ARGV[3]
local first = 4
local n = redis.call('hlen', KEYS[1])
local existed = n > 0
if existed then
{{group_own_hash}}
	for i = first, #ARGV do
		local holder = redis.call('hget', KEYS[1], ARGV[i])
		if holder and holder ~= me then
			local expiry = tonumber(redis.call('hget', KEYS[1], ARGV[i] .. ':' .. holder .. ':expire_time'))
			if expiry ~= nil and expiry > now then
				return 0
			end
		end
	end
end
{{group_take}}
return 1
