-- config_owned refuses, before the config is written, a hash under the
-- name with none of the config's fields: another kind's (Redisson's HSETNX
-- would add the config's fields to it).

if redis.call('exists', KEYS[1]) == 1 then
	local c = redis.call('hmget', KEYS[1], 'rate', 'interval', 'type', 'keepAliveTime')
	if not (c[1] or c[2] or c[3] or c[4]) then
{{refuse_hash key=KEYS[1] want=ratelimiter}}
	end
end
