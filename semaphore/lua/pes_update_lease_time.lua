-- ours: RedissonPermitExpirableSemaphore.updateLeaseTimeAsync (Redisson 3.52.0 and 4.7.0:
-- same keys, arguments, writes and messages), written anew.
{{reclaim zset=KEYS[2] now=ARGV[3] limit=-1 key=KEYS[1] publish=ARGV[4] channel=KEYS[3]}}
if redis.call('zscore', KEYS[2], ARGV[1]) ~= false then
	redis.call('zadd', KEYS[2], ARGV[2], ARGV[1])
	return 1
end
return 0
