-- ours: RedissonDelayedQueue.containsAsync's calls (Redisson 3.52.0 and 4.7.0), in our own
-- text (records: delayedqueue.json).

local n = redis.call('llen', KEYS[1])
for i = 0, n - 1 do
  local entry = redis.call('lindex', KEYS[1], i)
  local _, value = struct.unpack('Bc0Lc0', entry)
  if value == ARGV[1] then
    return 1
  end
end
return 0