-- ours: the renewal of Redisson's FastMultilockTask (3.44+, Redisson 3.52.0 and 4.7.0), one
-- group per call.

if redis.call('exists', KEYS[1]) == 0 then
	return 0
end
local lease = tonumber(ARGV[1])
local me = ARGV[3]
local renewed = lease + tonumber(ARGV[2])
for i = 4, #ARGV do
	if redis.call('hget', KEYS[1], ARGV[i]) ~= me then
		return 0
	end
	local ef = ARGV[i] .. ':' .. me .. ':expire_time'
	local cur = tonumber(redis.call('hget', KEYS[1], ef))
	if cur == nil or cur < renewed then
		redis.call('hset', KEYS[1], ef, renewed)
	end
end
if redis.call('pttl', KEYS[1]) < lease then
	redis.call('pexpire', KEYS[1], lease)
end
return 1
