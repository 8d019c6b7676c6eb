-- Redisson 3.52.0 and 4.7.0: RedissonMap.putOperationAsync, byte for byte (records:
-- collections.json, collections.map_string and map_json).
local v = redis.call('hget', KEYS[1], ARGV[1]); redis.call('hset', KEYS[1], ARGV[1], ARGV[2]); return v