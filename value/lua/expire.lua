-- ours: RedissonExpirable.expireAsync(ttl, unit, param, keys) (Redisson 3.52.0 and 4.7.0):
-- one PEXPIRE per key, with the mode (NX, XX, GT, LT) when ARGV[2] is not empty, written anew.

local result = 0
for j = 1, #KEYS do
	local set
	if ARGV[2] ~= '' then
		set = redis.call('pexpire', KEYS[j], ARGV[1], ARGV[2])
	else
		set = redis.call('pexpire', KEYS[j], ARGV[1])
	end
	if set == 1 then
		result = 1
	end
end
return result
