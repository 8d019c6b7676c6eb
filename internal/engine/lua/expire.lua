-- ours: Redisson's expire PEXPIREs a lock without checking its holder; this one sets the
-- lease only while the owner still holds the lock.

if redis.call('hexists', KEYS[1], ARGV[2]) == 1 then
	redis.call('pexpire', KEYS[1], ARGV[1])
	return 1
end
return 0
