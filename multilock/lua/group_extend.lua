-- ours: Redisson has none; sets a group hold's lease after the values were taken with a
-- provisional one, only while the owner still holds them.

if redis.call('exists', KEYS[1]) == 0 then
	return 0
end
local lease = tonumber(ARGV[1])
local now = tonumber(ARGV[2])
local me = ARGV[3]
local expire = now + lease
for i = 5, #ARGV do
	if redis.call('hget', KEYS[1], ARGV[i]) ~= me then
		return 0
	end
	local cur = tonumber(redis.call('hget', KEYS[1], ARGV[i] .. ':' .. me .. ':expire_time'))
	if cur == nil or cur < now then
		return 0
	end
end
for i = 5, #ARGV do
	local ef = ARGV[i] .. ':' .. me .. ':expire_time'
	if ARGV[4] ~= '1' or tonumber(redis.call('hget', KEYS[1], ef)) < expire then
		redis.call('hset', KEYS[1], ef, expire)
	end
end
local pttl = redis.call('pttl', KEYS[1])
if pttl >= 0 and pttl < lease then
	redis.call('pexpire', KEYS[1], lease)
end
return 1
