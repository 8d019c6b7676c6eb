package bits

import "embed"

// luaFiles holds the package's Lua scripts, one per file, and the
// fragments they share (see internal/lua).
//
//go:embed lua
var luaFiles embed.FS
