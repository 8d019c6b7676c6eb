-- ours: RedissonDelayedQueue.peekAsync's calls (Redisson 3.52.0 and 4.7.0), in our own
-- text.

local entry = redis.call('lindex', KEYS[1], 0)
if entry ~= false then
  local _, value = struct.unpack('Bc0Lc0', entry)
  return value
end
return nil