-- ours: Redisson's expire PEXPIREs without checking the holder; this one sets a read or
-- write hold's lease only while the owner still holds it.

local count = tonumber(redis.call('hget', KEYS[1], ARGV[2]))
if count == nil or count <= 0 then
	return 0
end
local lease = tonumber(ARGV[1])
local need = lease
if ARGV[3] == '0' then
	for k = 1, count do
		redis.call('pexpire', KEYS[2] .. ':' .. ARGV[2] .. ':rwlock_timeout:' .. k, lease)
	end
	if redis.call('hget', KEYS[1], 'mode') == 'write' then
		need = math.max(need, redis.call('pttl', KEYS[1]))
	end
end
for _, f in ipairs(redis.call('hkeys', KEYS[1])) do
	if f ~= ARGV[2] then
		local n = tonumber(redis.call('hget', KEYS[1], f))
		if type(n) == 'number' then
			for k = n, 1, -1 do
				need = math.max(need, redis.call('pttl', KEYS[2] .. ':' .. f .. ':rwlock_timeout:' .. k))
			end
		end
	end
end
redis.call('pexpire', KEYS[1], need)
return 1
