-- ours: RedissonFairLock.acquireFailedAsync's effect (Redisson 3.52.0 and 4.7.0), written
-- anew.

local queue = redis.call('lrange', KEYS[1], 0, -1)
local i = 1
while i <= #queue and queue[i] ~= ARGV[1] do
	i = i + 1
end
for j = i + 1, #queue do
	redis.call('zincrby', KEYS[2], -tonumber(ARGV[2]), queue[j])
end
redis.call('zrem', KEYS[2], ARGV[1])
redis.call('lrem', KEYS[1], 0, ARGV[1])
return nil
