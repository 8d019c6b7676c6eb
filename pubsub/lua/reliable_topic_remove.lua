-- ours: RedissonReliableTopic's unsubscribe (Redisson 3.52.0 and 4.7.0): the same calls,
-- keys and arguments in our own text (records: topics.json, topic.reliable).

redis.pcall('xgroup', 'destroy', KEYS[1], ARGV[1])
redis.call('zrem', KEYS[2], ARGV[1])