package latch

import (
	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/internal/lua"
)

// The scripts keep RedissonCountDownLatch's contract (docs/protocol.md §10): the
// same KEYS and ARGV order, the same writes and the messages "1" (armed,
// deleted) and "0" (reached zero) on redisson_countdownlatch__channel__{N}.

// trySetScript arms the latch when it does not exist. Where Redisson
// answers false for a key of another type, it answers WRONGTYPE (nothing is
// written either way), so that the caller learns what is in the way.
// KEYS: [name, channel]. ARGV: ["1", count, PUBLISH|SPUBLISH].
// Reply: 1 = set, 0 = it existed.
var trySetScript = core.NewScript("latch.trySetCount", lua.MustText(luaFiles, "lua/try_set_count.lua"))

// countDownScript decrements the count; the key goes when it reaches zero
// or below (a count-down of an absent latch leaves nothing), and only the
// count-down that reaches exactly zero publishes, as in Redisson.
// KEYS: [name, channel]. ARGV: ["0", PUBLISH|SPUBLISH].
// Reply: the count after the decrement.
var countDownScript = core.NewScript("latch.countDown", lua.MustText(luaFiles, "lua/count_down.lua"))

// deleteScript deletes the latch and, when there was one, publishes "1".
// KEYS: [name, channel]. ARGV: ["1", PUBLISH|SPUBLISH].
// Reply: 1 = deleted, 0 = there was none.
var deleteScript = core.NewScript("latch.delete", lua.MustText(luaFiles, "lua/delete.lua"))

// getScript reads the count on the master, as Redisson's getCount does: a
// waiter that read a lagging replica after the zero message would sleep
// with no message left to wake it.
// KEYS: [name]. Reply: the value, or nil.
var getScript = core.NewScript("latch.get", lua.MustText(luaFiles, "lua/get.lua"))
