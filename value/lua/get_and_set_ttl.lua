-- ours: RedissonBucket.getAndSetAsync(value, ttl) (Redisson 3.52.0 and 4.7.0): GET and
-- PSETEX, written anew.

local old = redis.call('get', KEYS[1])
redis.call('psetex', KEYS[1], ARGV[2], ARGV[1])
return old