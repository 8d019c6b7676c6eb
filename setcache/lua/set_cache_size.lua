-- Redisson 3.52.0 and 4.7.0: RedissonSetCache.sizeAsync, byte for byte (records:
-- collections.json, collections.set_cache): only members whose expiry lies after
-- the caller's now are counted.
local values = redis.call('zrangebyscore', KEYS[1], ARGV[1], ARGV[2]);return #values;