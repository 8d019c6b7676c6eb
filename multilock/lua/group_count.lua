-- ours: RedissonFasterMultiLock's hold count, read in one script: the smallest lock_count
-- among the values.

local least = nil
for i = 2, #ARGV do
	if redis.call('hget', KEYS[1], ARGV[i]) ~= ARGV[1] then
		return 0
	end
	local c = tonumber(redis.call('hget', KEYS[1], ARGV[i] .. ':' .. ARGV[1] .. ':lock_count')) or 0
	if least == nil or c < least then
		least = c
	end
end
return least or 0
