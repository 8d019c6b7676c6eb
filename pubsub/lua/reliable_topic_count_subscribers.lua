-- ours: RedissonReliableTopic.countSubscribersAsync (Redisson 3.52.0 and 4.7.0: XINFO
-- GROUPS), which answers 0 for a stream that does not exist.

local groups = redis.pcall('xinfo', 'groups', KEYS[1])
if groups.err then return 0 end
return #groups