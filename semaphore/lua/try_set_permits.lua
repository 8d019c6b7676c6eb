-- ours: RedissonSemaphore.trySetPermitsAsync, with a TTL as 3.29+ (Redisson 3.52.0 and
-- 4.7.0: same keys, arguments, writes and messages), written anew.

if redis.call('get', KEYS[1]) ~= false then
	return 0
end
if ARGV[3] then
	redis.call('set', KEYS[1], ARGV[1], 'px', ARGV[3])
else
	redis.call('set', KEYS[1], ARGV[1])
end
redis.call(ARGV[2], KEYS[2], ARGV[1])
return 1
