-- ours: RedissonBucket.setIfExistsAsync(null) (Redisson 3.52.0 and 4.7.0): the same Redis
-- calls in the same order, written anew.

if redis.call('get', KEYS[1]) ~= false then
	redis.call('del', KEYS[1])
	return 1
end
return 0