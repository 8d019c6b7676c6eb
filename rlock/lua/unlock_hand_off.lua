-- ours: Redisson has none; the final release hands the lock to a waiter of this client
-- instead of publishing.
{{unlock_head}}
redis.call('hdel', KEYS[1], ARGV[3])
redis.call('hset', KEYS[1], ARGV[6], 1)
redis.call('pexpire', KEYS[1], ARGV[7])
redis.call('set', KEYS[3], 1, 'px', ARGV[5])
return 1
