package mapcache

import (
	"embed"

	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/internal/lua"
)

// luaFiles holds Redisson's map-cache scripts, one per file (see
// internal/lua).
//
//go:embed lua
var luaFiles embed.FS

func script(name, file string) *core.Script {
	return core.NewScript(name, lua.MustText(luaFiles, "lua/"+file))
}

// Redisson's RMapCache scripts; each file's header names the method.
var (
	putScript                = script("map cache put", "put.lua")
	putTTLScript             = script("map cache put ttl", "put_ttl.lua")
	fastPutScript            = script("map cache fast put", "fast_put.lua")
	fastPutTTLScript         = script("map cache fast put ttl", "fast_put_ttl.lua")
	putIfAbsentScript        = script("map cache put if absent", "put_if_absent.lua")
	putIfAbsentTTLScript     = script("map cache put if absent ttl", "put_if_absent_ttl.lua")
	fastPutIfAbsentScript    = script("map cache fast put if absent", "fast_put_if_absent.lua")
	fastPutIfAbsentTTLScript = script("map cache fast put if absent ttl", "fast_put_if_absent_ttl.lua")
	fastPutIfExistsScript    = script("map cache fast put if exists", "fast_put_if_exists.lua")
	replaceScript            = script("map cache replace", "replace.lua")
	getScript                = script("map cache get", "get.lua")
	getAllScript             = script("map cache get all", "get_all.lua")
	containsKeyScript        = script("map cache contains key", "contains_key.lua")
	remainTimeToLiveScript   = script("map cache remain time to live", "remain_time_to_live.lua")
	removeScript             = script("map cache remove", "remove.lua")
	fastRemoveScript         = script("map cache fast remove", "fast_remove.lua")
	readAllScript            = script("map cache read all", "read_all.lua")
	scanScript               = script("map cache scan", "scan.lua")
	scanTouchScript          = script("map cache scan touch", "scan_touch.lua")
	trySetMaxSizeScript      = script("map cache try set max size", "try_set_max_size.lua")
	expireScript             = script("map cache expire", "expire.lua")
	clearExpireScript        = script("map cache clear expire", "clear_expire.lua")
	evictScript              = script("map cache evict", "evict.lua")
)
