-- ours: BaseRedissonList.removeAsync(int) (3.52.0, 4.7.0) marks the element with
-- DELETED_BY_REDISSON and removes the first element equal to it, a real element of that
-- text further up included; this one picks a marker the list does not hold.

local v = redis.call('lindex', KEYS[1], ARGV[1]);
if v == false then return nil end;
local marker = 'DELETED_BY_REDISSON';
while redis.call('lpos', KEYS[1], marker) ~= false do marker = marker .. '_' end;
redis.call('lset', KEYS[1], ARGV[1], marker);
redis.call('lrem', KEYS[1], 1, marker);
return v