-- drop_stale_head removes queue heads whose stale deadline has passed;
-- {{now}} is the ARGV holding "now". A head without a score stops the loop
-- (Redisson 3.32+).

while true do
	local head = redis.call('lindex', KEYS[2], 0)
	if head == false then
		break
	end
	local s = redis.call('zscore', KEYS[3], head)
	if s ~= false and tonumber(s) <= tonumber({{now}}) then
		redis.call('zrem', KEYS[3], head)
		redis.call('lpop', KEYS[2])
	else
		break
	end
end
