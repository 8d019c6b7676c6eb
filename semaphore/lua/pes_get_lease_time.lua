-- ours: RedissonPermitExpirableSemaphore.getLeaseTimeAsync (Redisson 3.52.0 and 4.7.0: same
-- keys, arguments, writes and messages), which answers -2 for a permit not held (Redisson
-- 3.41+ answers 0 and throws).
{{reclaim zset=KEYS[2] now=ARGV[3] limit=-1 key=KEYS[1] publish=ARGV[4] channel=KEYS[3]}}
local score = redis.call('zscore', KEYS[2], ARGV[1])
if score == false then
	return -2
end
if score == ARGV[2] then
	return -1
end
return tonumber(score) - tonumber(ARGV[3])
