-- Redisson 3.52.0 and 4.7.0: RedissonScoredSortedSet.pollFirstAsync/pollLastAsync, byte for
-- byte (records: collections.json, collections.scored_sorted_set).
local v = redis.call('zrange', KEYS[1], ARGV[1], ARGV[2]); if #v > 0 then redis.call('zremrangebyrank', KEYS[1], ARGV[1], ARGV[2]); return v; end return v;