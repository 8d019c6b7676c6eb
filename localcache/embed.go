package localcache

import "embed"

// luaFiles holds the package's Lua scripts, one per file (see
// internal/lua).
//
//go:embed lua
var luaFiles embed.FS
