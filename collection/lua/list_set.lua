-- Redisson 3.52.0 and 4.7.0: BaseRedissonList.setAsync, byte for byte (records:
-- collections.json, collections.list).
local v = redis.call('lindex', KEYS[1], ARGV[1]); redis.call('lset', KEYS[1], ARGV[1], ARGV[2]); return v