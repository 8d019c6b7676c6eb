-- Redisson 3.52.0 and 4.7.0: RedissonBloomFilter.readSettingAsync, byte for byte (records:
-- bloomfilter.json): one field of {name}:config, an error when there is none.
if redis.call('exists', KEYS[1]) == 0 then assert(false, 'Bloom filter is not initialized')end; return redis.call('hget', KEYS[1], ARGV[1]);