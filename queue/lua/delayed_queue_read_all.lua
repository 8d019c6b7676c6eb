-- ours: RedissonDelayedQueue.readAllAsync's calls (Redisson 3.52.0 and 4.7.0), in our own
-- text (records: delayedqueue.json).

local out = {}
for _, entry in ipairs(redis.call('lrange', KEYS[1], 0, -1)) do
  local _, value = struct.unpack('Bc0Lc0', entry)
  table.insert(out, value)
end
return out