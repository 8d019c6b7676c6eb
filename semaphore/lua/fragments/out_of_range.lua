-- out_of_range refuses, before any write, a count {{v}} (a Lua expression)
-- a Java int cannot hold, with the reply the Go side knows as
-- outOfRangeReply and the count.
if {{v}} > 2147483647 or {{v}} < -2147483648 then
	return redis.error_reply('ERR semaphore permits out of int range: ' .. string.format('%.0f', {{v}}))
end