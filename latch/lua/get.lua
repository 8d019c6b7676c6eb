-- ours: Redisson's getCount is a GET sent to the master; one call sent as a script, so that
-- it goes to the master.

return redis.call('get', KEYS[1])
