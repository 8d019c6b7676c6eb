-- ours: RedissonRateLimiter.setRateAsync (Redisson 3.52.0 and 4.7.0: same keys, arguments,
-- writes and messages), which refuses another kind's hash.
{{config_owned}}
local valueName = KEYS[2]
local permitsName = KEYS[4]
if ARGV[3] == '1' then
	valueName = KEYS[3]
	permitsName = KEYS[5]
end
redis.call('hset', KEYS[1], 'rate', ARGV[1])
redis.call('hset', KEYS[1], 'interval', ARGV[2])
redis.call('hset', KEYS[1], 'type', ARGV[3])
redis.call('hset', KEYS[1], 'keepAliveTime', ARGV[4])
if tonumber(ARGV[4]) > 0 then
	redis.call('pexpire', KEYS[1], ARGV[4])
end
redis.call('del', valueName, permitsName)
return 1
