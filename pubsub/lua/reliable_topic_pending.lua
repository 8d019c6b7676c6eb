-- ours: RedissonReliableTopic's XPENDING script (Redisson 3.52.0 and 4.7.0): the same
-- calls, keys and arguments in our own text (records: topics.json, topic.reliable).

local out = {}
local pending = redis.call('xpending', KEYS[1], ARGV[1], ARGV[2], ARGV[3], ARGV[4])
for _, p in ipairs(pending) do
  local e = redis.call('xrange', KEYS[1], p[1], p[1])
  if e[1] then out[#out + 1] = e[1] end
end
return out