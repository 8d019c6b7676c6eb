-- ours: RedissonPermitExpirableSemaphore.acquiredPermitsAsync (Redisson 3.52.0 and 4.7.0:
-- same keys, arguments, writes and messages), written anew.
{{reclaim zset=KEYS[2] now=ARGV[1] limit=-1 key=KEYS[1] publish=ARGV[2] channel=KEYS[3]}}
return redis.call('zcount', KEYS[2], 0, '+inf')
