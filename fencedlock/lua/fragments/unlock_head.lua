-- unlock_head is the common start of the unlock scripts, RLock's: replay a
-- retried request from its latch, refuse a non-owner, release a re-entrant
-- hold; what follows is the final release.
-- KEYS: [name, channel, latch, ...]. ARGV: [message "0", lease ms, owner
-- field, PUBLISH|SPUBLISH, latch TTL ms, ...].

local replay = redis.call('get', KEYS[3])
if replay ~= false then
	return tonumber(replay)
end
if redis.call('hexists', KEYS[1], ARGV[3]) == 0 then
	return nil
end
local left = redis.call('hincrby', KEYS[1], ARGV[3], -1)
if left > 0 then
	redis.call('pexpire', KEYS[1], ARGV[2])
	redis.call('set', KEYS[3], 0, 'px', ARGV[5])
	return 0
end
