package value

import "github.com/goredisson/redisson/internal/core"

// The scripts of RedissonBucket and RedissonAtomicLong (3.52.0), written
// anew with the same Redis calls in the same order, so a Go and a Java
// client leave the same state, TTLs included (a plain SET removes a TTL).
// KEYS[1] is always the object's name.
var (
	// compareAndSetScript: ARGV[1] the expected bytes, ARGV[2] the new ones.
	compareAndSetScript = core.NewScript("value.compareAndSet", `
if redis.call('get', KEYS[1]) == ARGV[1] then
	redis.call('set', KEYS[1], ARGV[2])
	return 1
end
return 0`)

	// deleteIfEqualScript: compare-and-set to null; ARGV[1] the expected bytes.
	deleteIfEqualScript = core.NewScript("value.deleteIfEqual", `
if redis.call('get', KEYS[1]) == ARGV[1] then
	redis.call('del', KEYS[1])
	return 1
end
return 0`)

	// deleteIfExistsScript: setIfExists(null).
	deleteIfExistsScript = core.NewScript("value.deleteIfExists", `
if redis.call('get', KEYS[1]) ~= false then
	redis.call('del', KEYS[1])
	return 1
end
return 0`)

	// getAndDeleteScript: getAndDelete, getAndSet(null) and the atomic
	// long's getAndDelete; the old value or nil.
	getAndDeleteScript = core.NewScript("value.getAndDelete", `
local old = redis.call('get', KEYS[1])
redis.call('del', KEYS[1])
return old`)

	// getAndSetTTLScript: ARGV[1] the new bytes, ARGV[2] the TTL in ms.
	getAndSetTTLScript = core.NewScript("value.getAndSetTTL", `
local old = redis.call('get', KEYS[1])
redis.call('psetex', KEYS[1], ARGV[2], ARGV[1])
return old`)

	// longCompareAndSetScript: ARGV[1] the expected decimal, ARGV[2] the new
	// one; an absent counter counts as 0.
	longCompareAndSetScript = core.NewScript("value.longCompareAndSet", `
local cur = redis.call('get', KEYS[1])
if cur == ARGV[1] or (cur == false and tonumber(ARGV[1]) == 0) then
	redis.call('set', KEYS[1], ARGV[2])
	return 1
end
return 0`)
)
