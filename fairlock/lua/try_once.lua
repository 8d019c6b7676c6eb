-- ours: RedissonFairLock.tryLockInnerAsync's try-once script (Redisson 3.52.0 and 4.7.0:
-- same keys, arguments, writes and messages), which also refuses another kind's hash
-- (WRONGKIND).
{{own_hash}}{{drop_stale_head now=ARGV[3]}}{{take_or_reenter wait=ARGV[4]}}
return 1
