-- take_or_reenter is the common part of both acquire variants: the lock is
-- free and nobody else is first in line, or the caller re-enters. The
-- queue's other deadlines move up by the caller's wait, since the chain of
-- deadlines counts one wait per waiter ahead. {{wait}} is the ARGV holding
-- the wait; n is the hash's length (own_hash).

if n == 0 and (redis.call('exists', KEYS[2]) == 0 or redis.call('lindex', KEYS[2], 0) == ARGV[2]) then
	redis.call('lpop', KEYS[2])
	redis.call('zrem', KEYS[3], ARGV[2])
	local queued = redis.call('zrange', KEYS[3], 0, -1)
	for i = 1, #queued do
		redis.call('zincrby', KEYS[3], -tonumber({{wait}}), queued[i])
	end
	redis.call('hset', KEYS[1], ARGV[2], 1)
	redis.call('pexpire', KEYS[1], ARGV[1])
	return nil
end
if redis.call('hexists', KEYS[1], ARGV[2]) == 1 then
	redis.call('hincrby', KEYS[1], ARGV[2], 1)
	redis.call('pexpire', KEYS[1], ARGV[1])
	return nil
end
