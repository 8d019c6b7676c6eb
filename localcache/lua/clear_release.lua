-- Redisson 4.7.0: RedissonSemaphore.releaseIfExistsAsync, byte for byte (what a receiver of a clear
-- message with releaseSemaphore runs; 3.52.0's receiver runs release, the same on an existing semaphore).
if redis.call('exists', KEYS[1]) == 0 then return 0 end local value = redis.call('incrby', KEYS[1], ARGV[1]) redis.call(ARGV[2], KEYS[2], value) return 1 