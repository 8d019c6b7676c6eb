-- ours: ends a script with the WRONGKIND reply for the hash {{key}} (a Lua
-- expression such as KEYS[1]) on behalf of the kind {{want}} (one of
-- core's Kind* tokens): Redisson's scripts never look at what another kind
-- left under a name they share. Meant for the branch where the script has
-- found a hash that is not its kind's, so it reads the fields it needs to
-- say what is there only then: the paths that take or re-enter pay nothing.
-- The kind tokens are core's Kind* constants, as core.HashKind reads them.

do
	local holds = 'hash'
	if redis.call('hexists', {{key}}, 'mode') == 1 then
		holds = 'rwlock'
	elseif redis.call('hexists', {{key}}, 'rate') == 1 then
		holds = 'ratelimiter'
	elseif redis.call('hlen', {{key}}) == 1 then
		holds = 'lock'
	else
		for _, f in ipairs(redis.call('hkeys', {{key}})) do
			if string.sub(f, -11) == ':lock_count' then
				holds = 'group'
				break
			end
		end
	end
	return redis.error_reply('WRONGKIND ' .. holds .. ' {{want}}')
end
