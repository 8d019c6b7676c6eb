-- group_take is the common end of both acquire scripts: take every value for
-- the owner, raise its expiry to now+lease, count the hold, and lengthen
-- G's TTL to the lease (a new G gets it; unlike Redisson's, also one whose
-- PTTL is 0, which would expire at once with the values just taken).
-- Locals: now, lease, me, existed, first (the ARGV index of the first
-- field id).

local expire = now + lease
for i = first, #ARGV do
	local f = ARGV[i]
	local ef = f .. ':' .. me .. ':expire_time'
	redis.call('hset', KEYS[1], f, me)
	local cur = tonumber(redis.call('hget', KEYS[1], ef))
	if cur == nil or cur < expire then
		redis.call('hset', KEYS[1], ef, expire)
	end
	redis.call('hincrby', KEYS[1], f .. ':' .. me .. ':lock_count', 1)
end
if existed then
	-- Redisson lengthens only a PTTL > 0: a hash with less than 1ms left
	-- (PTTL 0) would vanish with the values just taken. A hash without
	-- TTL (-1) is left so, as in Redisson.
	local pttl = redis.call('pttl', KEYS[1])
	if pttl >= 0 and lease > pttl then
		redis.call('pexpire', KEYS[1], lease)
	end
else
	redis.call('pexpire', KEYS[1], lease)
end
