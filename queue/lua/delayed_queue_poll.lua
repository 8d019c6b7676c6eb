-- ours: RedissonDelayedQueue.pollAsync's calls (Redisson 3.52.0 and 4.7.0), in our own text
-- (records: delayedqueue.json).

local entry = redis.call('lpop', KEYS[1])
if entry ~= false then
  redis.call('zrem', KEYS[2], entry)
  local _, value = struct.unpack('Bc0Lc0', entry)
  return value
end
return nil