-- ours: Redisson 3.52.0 and 4.7.0's RedissonSetCache.addAllAsync(Map<V, Duration>)
-- text, byte for byte, copied from the source (no record calls it): it counts
-- a member as new when it was absent or expired, as add does.
local result = 0; for i=2, #ARGV, 2 do local expireDateScore = redis.call('zscore', KEYS[1], ARGV[i+1]); if not (expireDateScore ~= false and tonumber(expireDateScore) > tonumber(ARGV[1])) then result = result + 1; end; redis.call('zadd', KEYS[1], ARGV[i], ARGV[i+1]); end; return result; 