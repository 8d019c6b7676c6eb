-- group_own_hash refuses, before anything is written, a hash that another
-- kind owns: a lock's has exactly one field (a group's has at least two:
-- a value's expiry and count stay behind when another owner took it and
-- let it go), a read-write lock's has "mode", a rate limiter's "rate".
-- None of them has a field a value id could match, so without the check
-- the values would be taken into that hash. n is the hash's length, read
-- with HLEN in the place of Redisson's EXISTS: the check costs one HMGET,
-- and only when the hash exists.

local other = redis.call('hmget', KEYS[1], 'mode', 'rate')
if n == 1 or other[1] or other[2] then
{{refuse_hash key=KEYS[1] want=group}}
end
