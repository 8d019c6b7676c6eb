package fencedlock

import (
	"strings"
	"testing"

	"github.com/goredisson/redisson/internal/lua"
	"github.com/goredisson/redisson/internal/lua/luatest"
)

// TestScriptText: every script of the package sends the text (SHA1) it
// always has; Redis, the interop records and Java peers know it by it.
func TestScriptText(t *testing.T) {
	luatest.Check(t, "fencedlock",
		acquireScript,
		countTokenScript,
		deleteScript,
		forceUnlockScript,
		tokenScript,
		unlockHandOffScript,
		unlockScript,
	)
}

// TestScriptReplyText: the Go side recognises the token guard's reply by
// badTokenMarker, which the Lua writes out as a literal.
func TestScriptReplyText(t *testing.T) {
	if !strings.Contains(lua.MustText(luaFiles, "lua/acquire.lua"), badTokenMarker) {
		t.Errorf("lua/acquire.lua does not reply with %q", badTokenMarker)
	}
}
