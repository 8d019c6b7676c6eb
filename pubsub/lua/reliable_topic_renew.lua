-- ours: RedissonReliableTopic's watchdog renewal (Redisson 3.52.0 and 4.7.0): the same
-- calls, keys and arguments in our own text.

if not redis.call('zscore', KEYS[1], ARGV[2]) then return 0 end
redis.call('zadd', KEYS[1], ARGV[1], ARGV[2])
return 1