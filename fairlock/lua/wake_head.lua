-- ours: Redisson has none; wakes the queue head a waiter that gave up after a release would
-- otherwise leave asleep until its timer.

if redis.call('exists', KEYS[1]) == 1 then
	return 0
end
local head = redis.call('lindex', KEYS[2], 0)
if head == false then
	return 0
end
redis.call(ARGV[2], KEYS[3] .. ':' .. head, ARGV[1])
return 1
