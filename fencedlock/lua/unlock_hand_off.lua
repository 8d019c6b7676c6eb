-- ours: Redisson has none; the final release hands the lock to a waiter of this client with
-- a new token instead of publishing.
{{unlock_head}}
local current = redis.pcall('get', KEYS[4])
if type(current) == 'table' or (current ~= false and (string.match(current, '^%d+$') == nil or #current > 18)) then
	redis.call('del', KEYS[1])
	redis.call(ARGV[4], KEYS[2], ARGV[1])
	redis.call('set', KEYS[3], 1, 'px', ARGV[5])
	return 1
end
local token = redis.call('incr', KEYS[4])
redis.call('hdel', KEYS[1], ARGV[3])
redis.call('hset', KEYS[1], ARGV[6], 1)
redis.call('pexpire', KEYS[1], ARGV[7])
redis.call('set', KEYS[3], 1, 'px', ARGV[5])
return {1, token}
