package ratelimit

import (
	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/internal/lua"
)

// The scripts keep Redisson 3.52's RedissonRateLimiter contract (docs/protocol.md
// §13.2): the config hash N {rate, interval, type, keepAliveTime}, the
// remaining permits in {N}:value (or {N}:value:<client id> for PER_CLIENT),
// the grants zset {N}:permits (or …:<client id>) whose members are Lua
// struct 'Bc0I' (length byte 16, 16 random bytes, uint32 LE permits) scored
// with the granting client's ms clock. A Java RRateLimiter of the same name
// therefore counts a Go client's grants and the other way round.
//
// Every script takes KEYS = [N, {N}:value, {N}:value:CID, {N}:permits,
// {N}:permits:CID] and picks the pair the hash's type names. A script that
// starts with pick may answer with one of its refusals instead of the
// reply it names: a table (see fault) or the error WRONGKIND <kind>
// ratelimiter.

// acquireScript grants ARGV[1] permits if the window has them. Grants older
// than the interval are dropped first and their permits added back (clamped
// so that the value never exceeds rate minus the grants still in the
// window).
// ARGV: [permits, now ms, 16 random bytes].
// Reply: nil = granted; n = not enough, retry in n ms (when the oldest grant
// leaves the window, plus 3 ms).
var acquireScript = core.NewScript("ratelimit.tryAcquire", lua.MustText(luaFiles, "lua/try_acquire.lua"))

// undoGrantScript takes back the grant of ARGV[1] permits with id ARGV[2]
// (acquireScript's ARGV[3]) that nobody uses: its caller gave up while it
// was on the wire, or its reply was lost. The grant leaves the window and
// its permits go back to the value (clamped at the rate), so Java and Go
// peers see the window as if it had not been made. A grant that is not in
// the window (it never ran, or it has left the window and been counted
// back) changes nothing, so the script may run more than once. Not
// Redisson's: it has no such undo.
// ARGV: [permits, id]. Reply: 1 = taken back, 0 = no such grant.
var undoGrantScript = core.NewScript("ratelimit.undoGrant", lua.MustText(luaFiles, "lua/undo_grant.lua"))

// availableScript returns the permits left in the window, adding back the
// permits of grants that left it (not clamped, as in Redisson); an absent
// value key is created at the full rate.
// ARGV: [now ms]. Reply: the permits.
var availableScript = core.NewScript("ratelimit.availablePermits", lua.MustText(luaFiles, "lua/available_permits.lua"))

// releaseScript adds permits to the value, capped at the rate (an absent
// value counts as the full rate), leaving the grants alone, as Redisson
// 3.52 does. ARGV: [permits].
var releaseScript = core.NewScript("ratelimit.release", lua.MustText(luaFiles, "lua/release.lua"))

// deleteScript deletes the limiter's keys unless the name holds another
// kind's hash (Redisson's delete is a plain DEL, which would delete a lock
// held under the same name).
// KEYS: [N, value, client value, permits, client permits]. ARGV: [].
// Reply: the number of keys deleted; the error WRONGKIND <kind>
// ratelimiter when another kind owns the hash (nothing deleted), WRONGTYPE
// when the name holds another Redis type.
var deleteScript = core.NewScript("ratelimit.delete", lua.MustText(luaFiles, "lua/delete.lua"))

// trySetScript writes the config if there is none, field by field with
// HSETNX as Redisson does, and gives the hash keepAliveTime.
// KEYS: [N]. ARGV: [rate, interval ms, type, keepAliveTime ms].
// Reply: 1 = set, 0 = there was a config; the error WRONGKIND <kind>
// ratelimiter when another kind owns the hash (nothing written).
var trySetScript = core.NewScript("ratelimit.trySetRate", lua.MustText(luaFiles, "lua/try_set_rate.lua"))

// setScript overwrites the config and deletes the state of the new type
// (this client's keys for PER_CLIENT; other clients keep theirs, as in
// Redisson). ARGV: as trySetScript. Reply: 1; the error WRONGKIND <kind>
// ratelimiter when another kind owns the hash (nothing written).
var setScript = core.NewScript("ratelimit.setRate", lua.MustText(luaFiles, "lua/set_rate.lua"))

// expireScript gives every key of the limiter that exists a TTL, as
// Redisson's expire(Duration) over its five keys. ARGV: [ttl ms].
// Reply: 1 when any key got it.
var expireScript = core.NewScript("ratelimit.expire", lua.MustText(luaFiles, "lua/expire.lua"))
