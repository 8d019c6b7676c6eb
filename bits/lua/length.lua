-- ours: RedissonBitSet.lengthAsync (Redisson 3.52.0 and 4.7.0): the index after the highest set
-- bit. BITPOS finds the last byte holding a 1 (or the end), then the bytes are searched downward
-- with BITPOS on one byte and GETBIT from its last bit: the same Redis calls, written anew.

local i = redis.call('bitpos', KEYS[1], 1, -1)
local pos
if i < 0 then
	pos = redis.call('bitpos', KEYS[1], 0, -1)
else
	pos = math.floor(i / 8) * 8
end
while pos >= 0 do
	i = redis.call('bitpos', KEYS[1], 1, math.floor(pos / 8), math.floor(pos / 8))
	if i < 0 then
		pos = pos - 8
	else
		for j = pos + 7, pos, -1 do
			if redis.call('getbit', KEYS[1], j) == 1 then
				return j + 1
			end
		end
	end
end
return 0
