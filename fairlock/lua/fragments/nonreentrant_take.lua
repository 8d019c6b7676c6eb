-- nonreentrant_take takes the free lock for the caller, first in line or
-- alone: out of the queue, the others' deadlines moved up by {{wait}} (the
-- ARGV holding the caller's wait), one hold with the lease.

	redis.call('lpop', KEYS[2])
	redis.call('zrem', KEYS[3], ARGV[2])
	local queued = redis.call('zrange', KEYS[3], 0, -1)
	for i = 1, #queued do
		redis.call('zincrby', KEYS[3], -tonumber({{wait}}), queued[i])
	end
	redis.call('hset', KEYS[1], ARGV[2], 1)
	redis.call('pexpire', KEYS[1], ARGV[1])
	return nil
