-- Redisson 3.52.0 and 4.7.0: RedissonSetCache.addAsync(value, ttl, unit), byte for byte
-- (records: collections.json, collections.set_cache). Without a TTL, add(value)
-- sends the same script with the expiry 92233720368547758.
local expireDateScore = redis.call('zscore', KEYS[1], ARGV[3]); redis.call('zadd', KEYS[1], ARGV[2], ARGV[3]); if expireDateScore ~= false and tonumber(expireDateScore) > tonumber(ARGV[1]) then return 0;end; return 1; 