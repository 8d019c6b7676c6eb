-- ours: RedissonLock.unlockInnerAsync, as RedissonFencedLock sends it (Redisson 3.52.0 and
-- 4.7.0: same keys, arguments, writes and messages); the final release also answers how
-- many connections heard the message.
{{unlock_head}}
redis.call('del', KEYS[1])
local heard = redis.call(ARGV[4], KEYS[2], ARGV[1])
redis.call('set', KEYS[3], 1, 'px', ARGV[5])
return 1 + heard
