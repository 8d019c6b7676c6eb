package semaphore

import (
	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/internal/lua"
)

// The scripts keep RedissonSemaphore's contract (docs/protocol.md §8): the same KEYS
// and ARGV order, the same writes (SET where Redisson SETs, which clears a
// TTL; DECRBY/INCRBY where it uses them, which keep one), the same messages
// on redisson_sc:{name}. Where Redisson would write garbage over a value
// that is not a number (drainPermits), or clobber another object (a SET
// over a hash), ours refuse with an error reply and write nothing.

// acquireScript takes permits if enough are available.
// KEYS: [name]. ARGV: [permits].
// Reply: 1 = taken, 0 = not enough (or no semaphore).
var acquireScript = core.NewScript("semaphore.acquire", lua.MustText(luaFiles, "lua/acquire.lua"))

// releaseScript gives permits back (creating the key if absent) and
// publishes the new total: Java waiters wake min(waiters, total).
// KEYS: [name, channel]. ARGV: [permits, PUBLISH|SPUBLISH].
// Reply: the new total.
var releaseScript = core.NewScript("semaphore.release", lua.MustText(luaFiles, "lua/release.lua"))

// trySetScript initialises the semaphore when it does not exist and
// publishes the count set. With ARGV[3] the key gets that TTL (Redisson
// 3.29+ trySetPermits(n, ttl)).
// KEYS: [name, channel]. ARGV: [permits, PUBLISH|SPUBLISH, ttl ms?].
// Reply: 1 = set, 0 = it existed.
var trySetScript = core.NewScript("semaphore.trySetPermits", lua.MustText(luaFiles, "lua/try_set_permits.lua"))

// addScript adds (or with a negative count removes) permits with SET, as
// Redisson does, and publishes the new total, negative included (Redisson
// 3.16.2+; the records show addPermits(-1) publishing "-1"). Unlike
// Redisson's, it refuses, writing nothing, a total a Java int cannot hold.
// KEYS: [name, channel]. ARGV: [delta, PUBLISH|SPUBLISH].
// Reply: the new total.
var addScript = core.NewScript("semaphore.addPermits", lua.MustText(luaFiles, "lua/add_permits.lua"))

// outOfRangeReply starts the error reply of a script that refused to
// leave more permits than a Java int holds (or fewer than its least):
// Redisson reads the count as an int, so Java peers would misread it.
const outOfRangeReply = "ERR semaphore permits out of int range: "

// setScript sets the available permits whatever they were and publishes
// the count, as trySetPermits does when it sets. Redisson's RSemaphore has
// no such call: this is the Go side's, with effects a Java peer already
// knows (a SET, which clears a TTL as addPermits' does, and the count on
// the channel).
// KEYS: [name, channel]. ARGV: [permits, PUBLISH|SPUBLISH].
// Reply: 1.
var setScript = core.NewScript("semaphore.setPermits", lua.MustText(luaFiles, "lua/set_permits.lua"))

// drainScript takes every available permit, publishing nothing.
// KEYS: [name]. ARGV: [].
// Reply: what was available (a decimal string), or 0 when there was no
// semaphore.
var drainScript = core.NewScript("semaphore.drainPermits", lua.MustText(luaFiles, "lua/drain_permits.lua"))

// getScript reads the available permits on the master, as Redisson's GET
// (writeAsync) does: a replica may lag behind a release.
// KEYS: [name]. Reply: the value, or nil.
var getScript = core.NewScript("semaphore.get", lua.MustText(luaFiles, "lua/get.lua"))
