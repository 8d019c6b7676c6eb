-- ours: RedissonIdGenerator.tryInitAsync (Redisson 3.52.0 and 4.7.0): SETNX of the first id and
-- of the allocation size; the reply is the second's, written anew.

redis.call('setnx', KEYS[1], ARGV[1])
return redis.call('setnx', KEYS[2], ARGV[2])
