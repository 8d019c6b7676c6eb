-- ours: Redisson 4.7.0's SetCacheEvictionTask script, byte for byte, copied from the
-- source (its run is not in the records' command logs): a run-once latch that
-- other clients' runs skip on, then at most ARGV[2] expired members published on
-- the expired channel (while anyone listens) and removed. 3.52.0's task is a
-- plain ZREMRANGEBYSCORE of the same members (without a cap), so a 3.52 peer
-- sees the same set; the latch and the messages are what 4.7 adds.
if redis.call('setnx', KEYS[3], ARGV[4]) == 0 then return -1;end;redis.call('expire', KEYS[3], ARGV[3]); local expiredValues = redis.call('zrangebyscore', KEYS[1], 0, ARGV[1], 'limit', 0, ARGV[2]); for i, v in ipairs(expiredValues) do local msg = struct.pack('Lc0', string.len(v), v); local listeners = redis.call(ARGV[5], KEYS[2], msg); if (listeners == 0) then break;end; end;for i=1, #expiredValues, 5000 do redis.call('zrem', KEYS[1], unpack(expiredValues, i, math.min(i+4999, table.getn(expiredValues)))); end; return #expiredValues;