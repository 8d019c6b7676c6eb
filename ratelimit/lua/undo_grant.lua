-- ours: Redisson has none; takes back a grant whose reply was lost, by its random id.
{{pick}}
local member = struct.pack('Bc0I', string.len(ARGV[2]), ARGV[2], ARGV[1])
if redis.call('zrem', permitsName, member) == 0 then
	return 0
end
local currentValue = redis.call('get', valueName)
if currentValue ~= false then
	local newValue = tonumber(currentValue) + tonumber(ARGV[1])
	if newValue > tonumber(rate) then
		newValue = tonumber(rate)
	end
	redis.call('set', valueName, newValue)
end
{{keep_alive}}
return 1
