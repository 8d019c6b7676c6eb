package semaphore

import (
	"strings"
	"testing"

	"github.com/goredisson/redisson/internal/lua"
	"github.com/goredisson/redisson/internal/lua/luatest"
)

// TestScriptText: every script of the package sends the text (SHA1) it
// always has; Redis, the interop records and Java peers know it by it.
func TestScriptText(t *testing.T) {
	luatest.Check(t, "semaphore",
		acquireScript,
		addScript,
		drainScript,
		expAcquireScript,
		expAcquiredScript,
		expAddScript,
		expAvailableScript,
		expLeaseScript,
		expPermitsScript,
		expReleaseScript,
		expSetScript,
		expUpdateLeaseScript,
		getScript,
		releaseScript,
		setScript,
		trySetScript,
	)
}

// TestScriptReplyText: the Go side recognises the out-of-range refusal's reply by
// outOfRangeReply, which the Lua writes out as a literal.
func TestScriptReplyText(t *testing.T) {
	if !strings.Contains(lua.MustText(luaFiles, "lua/add_permits.lua"), outOfRangeReply) {
		t.Errorf("lua/add_permits.lua does not reply with %q", outOfRangeReply)
	}
}
