-- reclaim returns expired permits to the pool and publishes the new count
-- when it is positive: every script but the releases starts with it, so
-- an expired permit comes back the next time anyone looks. Its values:
-- {{zset}} the timeout zset, {{now}} the "now" argument, {{limit}} the
-- limit (a Lua expression), {{key}} the semaphore key, {{publish}} the
-- publish command argument, {{channel}} the channel key.

local expired = redis.call('zrangebyscore', {{zset}}, 0, {{now}}, 'limit', 0, {{limit}})
if #expired > 0 then
	redis.call('zrem', {{zset}}, unpack(expired))
	local v = redis.call('incrby', {{key}}, #expired)
	if tonumber(v) > 0 then
		redis.call({{publish}}, {{channel}}, v)
	end
end
