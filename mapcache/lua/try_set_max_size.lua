-- Redisson 3.52.0 and 4.7.0: RedissonMapCache.trySetMaxSizeAsync, byte for byte from both tags' source
-- (no record sends it).
redis.call('hsetnx', KEYS[1], 'max-size', ARGV[1]);return redis.call('hsetnx', KEYS[1], 'mode', ARGV[2]);