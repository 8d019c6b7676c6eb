-- ours: RedissonSemaphore.releaseAsync (Redisson 3.52.0 and 4.7.0: same keys, arguments,
-- writes and messages), written anew.

local v = redis.call('incrby', KEYS[1], ARGV[1])
redis.call(ARGV[2], KEYS[2], v)
return v
