-- ours: Redisson reads the hold count with HGET on the master (getHoldCount); one call sent
-- as a script, so that it goes to the master.

return redis.call('hget', KEYS[1], ARGV[1])
