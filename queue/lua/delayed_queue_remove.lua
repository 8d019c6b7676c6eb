-- ours: RedissonDelayedQueue.removeAsync's calls (Redisson 3.52.0 and 4.7.0), in our own
-- text.

local n = redis.call('llen', KEYS[1])
for i = 0, n - 1 do
  local entry = redis.call('lindex', KEYS[1], i)
  local _, value = struct.unpack('Bc0Lc0', entry)
  if value == ARGV[1] then
    redis.call('zrem', KEYS[2], entry)
    redis.call('lrem', KEYS[1], 1, entry)
    return 1
  end
end
return 0