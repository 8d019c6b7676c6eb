-- ours: RedissonReliableTopic's subscriber registration (Redisson 3.52.0 and 4.7.0): the
-- same calls, keys and arguments in our own text (records: topics.json, topic.reliable).

redis.call('zadd', KEYS[2], ARGV[3], ARGV[2])
redis.call('xgroup', 'create', KEYS[1], ARGV[2], ARGV[1], 'MKSTREAM')