-- ours: RedissonRateLimiter.trySetRateAsync (Redisson 3.52.0 and 4.7.0: same keys,
-- arguments, writes and messages), which refuses another kind's hash where Redisson's
-- HSETNX would add fields to it.
{{config_owned}}
redis.call('hsetnx', KEYS[1], 'rate', ARGV[1])
redis.call('hsetnx', KEYS[1], 'interval', ARGV[2])
redis.call('hsetnx', KEYS[1], 'keepAliveTime', ARGV[4])
local res = redis.call('hsetnx', KEYS[1], 'type', ARGV[3])
if res == 1 and tonumber(ARGV[4]) > 0 then
	redis.call('pexpire', KEYS[1], ARGV[4])
end
return res
