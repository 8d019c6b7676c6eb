-- ours: RedissonRateLimiter.deleteAsync's DEL (Redisson 3.52.0 and 4.7.0), which leaves
-- another kind's hash alone.
{{config_owned}}
return redis.call('del', unpack(KEYS))
