-- ours: RedissonReliableTopic.publishAsync's calls, keys and arguments (Redisson 3.52.0 and
-- 4.7.0), in our own text (records: topics.json, topic.reliable, compare the calls).

redis.call('xadd', KEYS[1], '*', 'm', ARGV[1])
local groups = redis.call('xinfo', 'groups', KEYS[1])
return #groups