-- Redisson 3.52.0 and 4.7.0: RedissonMap.removeOperationAsync, byte for byte (records:
-- collections.json, collections.map_string and map_json).
local v = redis.call('hget', KEYS[1], ARGV[1]); redis.call('hdel', KEYS[1], ARGV[1]); return v