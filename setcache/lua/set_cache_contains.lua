-- Redisson 3.52.0 and 4.7.0: RedissonSetCache.containsAsync, byte for byte (records:
-- collections.json, collections.set_cache): a member whose expiry is not after
-- the caller's now is absent.
local expireDateScore = redis.call('zscore', KEYS[1], ARGV[2]); if expireDateScore ~= false then if tonumber(expireDateScore) <= tonumber(ARGV[1]) then return 0;end;return 1;end; return 0;