-- ours: RedissonDelayedQueue.offerAsync's calls, keys and arguments (Redisson 3.52.0 and
-- 4.7.0), in our own text (records: delayedqueue.json compare the calls).

local entry = struct.pack('Bc0Lc0', string.len(ARGV[2]), ARGV[2], string.len(ARGV[3]), ARGV[3])
redis.call('zadd', KEYS[2], ARGV[1], entry)
redis.call('rpush', KEYS[3], entry)
local head = redis.call('zrange', KEYS[2], 0, 0)
if head[1] == entry then
  redis.call('publish', KEYS[4], ARGV[1])
end