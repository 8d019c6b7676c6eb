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

// The expiry scripts of RedissonExpirable, for every value object: KEYS are
// the object's keys, ARGV[1] the TTL in ms (expireAt: epoch ms), ARGV[2]
// the PEXPIRE mode or "".
var (
	expireScript   = core.NewScript("value.expire", lua.MustText(luaFiles, "lua/expire.lua"))
	expireAtScript = core.NewScript("value.expireAt", lua.MustText(luaFiles, "lua/expire_at.lua"))
)

// doubleCompareAndSetScript: ARGV[1] the expected number, ARGV[2] the new
// one, both as Java's BigDecimal.toPlainString writes them.
var doubleCompareAndSetScript = core.NewScript("value.doubleCompareAndSet", lua.MustText(luaFiles, "lua/double_compare_and_set.lua"))

// The id generator's scripts: KEYS[1] the name (the next free id), KEYS[2]
// {name}:allocation (the block size). idTryInitScript's ARGV are the first
// id and the size.
var (
	idTryInitScript   = core.NewScript("value.idTryInit", lua.MustText(luaFiles, "lua/id_try_init.lua"))
	idNextBlockScript = core.NewScript("value.idNextBlock", lua.MustText(luaFiles, "lua/id_next_block.lua"))
)
