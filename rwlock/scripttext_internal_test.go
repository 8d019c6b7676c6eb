package rwlock

import (
	"testing"

	"github.com/goredisson/redisson/internal/lua/luatest"
)

// TestScriptText: every script of the package sends the text (SHA1) it
// always has; Redis, the interop records and Java peers know it by it.
func TestScriptText(t *testing.T) {
	luatest.Check(t, "rwlock",
		expireScript,
		forceUnlockScript,
		holdCountScript,
		readAcquireScript,
		readIsLockedScript,
		readRenewScript,
		readUnlockScript,
		writeAcquireScript,
		writeUnlockScript,
	)
}
