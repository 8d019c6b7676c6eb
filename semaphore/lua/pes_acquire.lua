-- ours: RedissonPermitExpirableSemaphore.tryAcquireAsync (3.23.4+, Redisson 3.52.0 and
-- 4.7.0: same keys, arguments, writes and messages), written anew.
{{reclaim zset=KEYS[2] now=ARGV[3] limit=ARGV[1] key=KEYS[1] publish=ARGV[5] channel=KEYS[3]}}
local v = redis.call('get', KEYS[1])
if v ~= false and tonumber(v) >= tonumber(ARGV[1]) then
	redis.call('decrby', KEYS[1], ARGV[1])
	for i = 6, #ARGV do
		redis.call('zadd', KEYS[2], ARGV[2], ARGV[i])
	end
	local ttl = redis.call('pttl', KEYS[1])
	if ttl > 0 then
		redis.call('pexpire', KEYS[2], ttl)
	end
	return 'OK'
end
local first = redis.call('zrange', KEYS[2], 0, 0, 'WITHSCORES')
if first[1] ~= nil and first[2] ~= ARGV[4] then
	return ':' .. tostring(first[2])
end
return nil
