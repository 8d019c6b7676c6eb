-- Redisson 3.52.0 and 4.7.0: RedissonLongAdder.getAndDeleteAsync (and RedissonDoubleAdder's), byte for
-- byte (records: longadder.json): the counter of one sum, read and deleted.
local currValue = redis.call('get', KEYS[1]); redis.call('del', KEYS[1]); return currValue; 