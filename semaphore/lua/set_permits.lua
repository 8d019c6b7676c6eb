-- ours: RSemaphore has no such call; sets the permits with the effects a Java peer knows (a
-- SET and the count on the channel).

local v = redis.call('get', KEYS[1])
if v ~= false and tonumber(v) == nil then
	{{not_number}}
end
redis.call('set', KEYS[1], ARGV[1])
redis.call(ARGV[2], KEYS[2], ARGV[1])
return 1
