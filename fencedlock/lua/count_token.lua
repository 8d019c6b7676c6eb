-- ours: Redisson has none; reads the hold count and the latest token in one step on the
-- master, to recover from a lost acquire or hand-off reply.

return {redis.call('hget', KEYS[1], ARGV[1]), redis.call('get', KEYS[2])}
