package semaphore

import (
	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/internal/lua"
)

// The permit-expirable semaphore's scripts keep the contract of Redisson
// 3.23.4+'s RedissonPermitExpirableSemaphore (docs/protocol.md §9): the same KEYS and
// ARGV order, the raw 16-byte ids as zset members, the string comparison
// with the non-expiring score, and the same messages, so that a Java
// service's RPermitExpirableSemaphore of the same name shares the permits.

// noLease is the score of a permit without a lease. The acquire script
// compares it as a string with the earliest score (§17 quirk 9): it must be
// sent exactly as these digits.
const noLease = "922337203685477"

// expAcquireScript takes ARGV[1] permits under the ids ARGV[6..] when that
// many are available, after reclaiming at most as many expired ones.
// KEYS: [name, timeout zset, channel].
// ARGV: [n, expiry, now, noLease, PUBLISH|SPUBLISH, id1 … idn].
// Reply: "OK" = taken; ":<ms>" = not enough, the earliest lease ends at
// <ms>; nil = not enough and no lease will end.
var expAcquireScript = core.NewScript("pes.acquire", lua.MustText(luaFiles, "lua/pes_acquire.lua"))

// expReleaseScript gives one permit back by id and publishes the new count.
// An expired permit still in the zset goes back to the pool too, but the
// reply says it was no longer held.
// KEYS: [name, channel, timeout zset]. ARGV: [id, 1, now, PUBLISH|SPUBLISH].
// Reply: 1 = released; 0 = unknown, already released or expired.
var expReleaseScript = core.NewScript("pes.release", lua.MustText(luaFiles, "lua/pes_release.lua"))

// expAvailableScript reclaims every expired permit and returns the
// available count. KEYS: [name, timeout zset, channel].
// ARGV: [now, PUBLISH|SPUBLISH].
var expAvailableScript = core.NewScript("pes.availablePermits", lua.MustText(luaFiles, "lua/pes_available_permits.lua"))

// expPermitsScript reclaims and returns available + acquired (0 when the
// semaphore does not exist). KEYS, ARGV: as expAvailableScript.
var expPermitsScript = core.NewScript("pes.getPermits", lua.MustText(luaFiles, "lua/pes_get_permits.lua"))

// expAcquiredScript reclaims and returns the number of permits held.
// KEYS, ARGV: as expAvailableScript.
var expAcquiredScript = core.NewScript("pes.acquiredPermits", lua.MustText(luaFiles, "lua/pes_acquired_permits.lua"))

// expSetScript makes the total (available + acquired) ARGV[1] by moving the
// available count, and publishes the total when it changed; no reclaim, as
// in Redisson. KEYS: [name, channel, timeout zset]. ARGV: [n, PUBLISH|SPUBLISH].
var expSetScript = core.NewScript("pes.setPermits", lua.MustText(luaFiles, "lua/pes_set_permits.lua"))

// expAddScript adds (or removes) available permits with SET and publishes
// the delta when it is positive (not the total, unlike RSemaphore). Unlike
// Redisson's, it refuses, writing nothing, a total a Java int cannot hold.
// KEYS: [name, channel]. ARGV: [delta, PUBLISH|SPUBLISH].
var expAddScript = core.NewScript("pes.addPermits", lua.MustText(luaFiles, "lua/pes_add_permits.lua"))

// expUpdateLeaseScript reclaims, then gives a held permit a new expiry.
// KEYS: [name, timeout zset, channel]. ARGV: [id, expiry, now, PUBLISH|SPUBLISH].
// Reply: 1 = updated, 0 = not held.
var expUpdateLeaseScript = core.NewScript("pes.updateLeaseTime", lua.MustText(luaFiles, "lua/pes_update_lease_time.lua"))

// expLeaseScript reclaims, then returns a held permit's remaining lease in
// ms: -1 without a lease, -2 when it is not held (Redisson 3.41+ returns 0
// there and its Java side throws; -2 keeps "not held" apart from a lease
// that ends now). KEYS: [name, timeout zset, channel].
// ARGV: [id, noLease, now, PUBLISH|SPUBLISH].
var expLeaseScript = core.NewScript("pes.getLeaseTime", lua.MustText(luaFiles, "lua/pes_get_lease_time.lua"))
