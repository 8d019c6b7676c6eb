-- Redisson 3.52.0 and 4.7.0: RedissonMap.putIfAbsentOperationAsync, byte for byte (records:
-- collections.json, collections.map_string and map_json).
if redis.call('hsetnx', KEYS[1], ARGV[1], ARGV[2]) == 1 then return nil else return redis.call('hget', KEYS[1], ARGV[1]) end