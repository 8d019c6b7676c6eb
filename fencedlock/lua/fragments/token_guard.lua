-- token_guard refuses, before anything is written, a token key that holds
-- something INCR would turn into a token that is not positive (a negative
-- number) or would refuse (not an integer). Redisson never writes such a
-- value; without the guard a negative one could come back as -1, which the
-- reply uses for "no token". A key of another type fails the GET with
-- WRONGTYPE, also before any write. Its error text is what the Go side
-- knows as badTokenMarker.

local current = redis.call('get', KEYS[2])
if current ~= false and string.match(current, '^%d+$') == nil then
	return redis.error_reply('ERR redisson fenced lock: token key holds no counter')
end
