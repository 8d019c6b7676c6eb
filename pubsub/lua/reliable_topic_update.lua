-- ours: RedissonReliableTopic's subscriber update and trim (Redisson 3.52.0 and 4.7.0): the
-- same calls, keys and arguments in our own text (records: topics.json, topic.reliable).

local dead = redis.call('zrangebyscore', KEYS[2], 0, tonumber(ARGV[2]) - 1)
for _, g in ipairs(dead) do
  redis.call('xgroup', 'destroy', KEYS[1], g)
  redis.call('zrem', KEYS[2], g)
end
local registered = redis.call('zscore', KEYS[2], ARGV[1])
local oldest = nil
for _, g in ipairs(redis.call('xinfo', 'groups', KEYS[1])) do
  for i = 1, #g, 2 do
    if g[i] == 'last-delivered-id' then
      local ms = tonumber(string.match(g[i + 1], '^(%d+)%-'))
      if oldest == nil or ms < oldest then oldest = ms end
    end
  end
end
if oldest ~= nil then
  local from = string.format('%d-0', oldest)
  local rest = redis.call('xrange', KEYS[1], from, '+')
  local keep = #rest
  if keep == 1 and rest[1][1] == from then keep = 0 end
  redis.call('xtrim', KEYS[1], 'maxlen', keep)
end
if registered then return 1 end
return 0