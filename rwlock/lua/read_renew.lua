-- ours: the renewal of Redisson 4.4+'s read batch (ReadLockTask; 3.44 to 3.52.0 fail part
-- way for a re-entrant read, which we do not reproduce), which also renews no hold one of
-- whose timeout keys is gone.

local out = {}
for i = 1, #KEYS / 2 do
	local name, prefix, owner = KEYS[2 * i - 1], KEYS[2 * i], ARGV[i + 1]
	local c = redis.pcall('hget', name, owner)
	local n = tonumber(c)
	out[i] = 0
	if type(n) == 'number' and n >= 1 then
		local base = prefix .. ':' .. owner .. ':rwlock_timeout:'
		local all = true
		for k = n, 1, -1 do
			if redis.call('exists', base .. k) == 0 then
				all = false
				break
			end
		end
		if all then
			for k = n, 1, -1 do
				redis.call('pexpire', base .. k, ARGV[1])
			end
			redis.call('pexpire', name, ARGV[1])
			out[i] = 1
		end
	end
end
return out
