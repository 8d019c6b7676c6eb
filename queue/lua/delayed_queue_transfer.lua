-- ours: RedissonDelayedQueue's transfer task script (Redisson 3.52.0 and 4.7.0): the same
-- calls, keys and arguments in our own text (records: delayedqueue.json).

local due = redis.call('zrangebyscore', KEYS[2], 0, ARGV[1], 'limit', 0, ARGV[2])
if #due > 0 then
  for _, entry in ipairs(due) do
    local _, value = struct.unpack('Bc0Lc0', entry)
    redis.call('rpush', KEYS[1], value)
    redis.call('lrem', KEYS[3], 1, entry)
  end
  redis.call('zrem', KEYS[2], unpack(due))
end
local head = redis.call('zrange', KEYS[2], 0, 0, 'WITHSCORES')
if head[1] ~= nil then
  return head[2]
end
return nil