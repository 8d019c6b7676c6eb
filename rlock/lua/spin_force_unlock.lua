-- Redisson 3.52.0 and 4.7.0: RedissonSpinLock.forceUnlockAsync, byte for byte (records:
-- spinlock.json, spinlock.basic, forceUnlock).
if (redis.call('del', KEYS[1]) == 1) then return 1 else return 0 end