package bits

import (
	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/internal/lua"
)

// lengthScript: RBitSet.length, the index after the highest set bit;
// KEYS[1] the bit set.
var lengthScript = core.NewScript("bits.length", lua.MustText(luaFiles, "lua/length.lua"))
