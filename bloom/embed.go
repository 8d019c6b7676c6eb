package bloom

import "embed"

// luaFiles holds the package's Lua scripts, one per file, each headed by
// the Redisson method it matches.
//
//go:embed lua
var luaFiles embed.FS
