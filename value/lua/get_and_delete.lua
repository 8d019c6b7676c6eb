-- ours: RedissonBucket.getAndDeleteAsync and RedissonAtomicLong.getAndDeleteAsync (Redisson
-- 3.52.0 and 4.7.0): GET and DEL, written anew.

local old = redis.call('get', KEYS[1])
redis.call('del', KEYS[1])
return old