-- keep_alive gives the state keys keepAliveTime (3.38+) when it is set, and
-- otherwise the hash's own TTL, so that they never outlive the config.

local keepAliveTime = redis.call('hget', KEYS[1], 'keepAliveTime')
if keepAliveTime ~= false and tonumber(keepAliveTime) > 0 then
	redis.call('pexpire', KEYS[1], keepAliveTime)
	redis.call('pexpire', valueName, keepAliveTime)
	redis.call('pexpire', permitsName, keepAliveTime)
else
	local ttl = redis.call('pttl', KEYS[1])
	if ttl > 0 then
		redis.call('pexpire', valueName, ttl)
		redis.call('pexpire', permitsName, ttl)
	end
end
