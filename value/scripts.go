package value

import (
	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/internal/lua"
)

// The scripts of RedissonBucket and RedissonAtomicLong (3.52.0), written
// anew with the same Redis calls in the same order, so a Go and a Java
// client leave the same state, TTLs included (a plain SET removes a TTL).
// KEYS[1] is always the object's name.
var (
	// compareAndSetScript: ARGV[1] the expected bytes, ARGV[2] the new ones.
	compareAndSetScript = core.NewScript("value.compareAndSet", lua.MustText(luaFiles, "lua/compare_and_set.lua"))

	// deleteIfEqualScript: compare-and-set to null; ARGV[1] the expected bytes.
	deleteIfEqualScript = core.NewScript("value.deleteIfEqual", lua.MustText(luaFiles, "lua/delete_if_equal.lua"))

	// deleteIfExistsScript: setIfExists(null).
	deleteIfExistsScript = core.NewScript("value.deleteIfExists", lua.MustText(luaFiles, "lua/delete_if_exists.lua"))

	// getAndDeleteScript: getAndDelete, getAndSet(null) and the atomic
	// long's getAndDelete; the old value or nil.
	getAndDeleteScript = core.NewScript("value.getAndDelete", lua.MustText(luaFiles, "lua/get_and_delete.lua"))

	// getAndSetTTLScript: ARGV[1] the new bytes, ARGV[2] the TTL in ms.
	getAndSetTTLScript = core.NewScript("value.getAndSetTTL", lua.MustText(luaFiles, "lua/get_and_set_ttl.lua"))

	// longCompareAndSetScript: ARGV[1] the expected decimal, ARGV[2] the new
	// one; an absent counter counts as 0.
	longCompareAndSetScript = core.NewScript("value.longCompareAndSet", lua.MustText(luaFiles, "lua/long_compare_and_set.lua"))
)
