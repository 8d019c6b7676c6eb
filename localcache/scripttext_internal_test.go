package localcache

import (
	"testing"

	"github.com/goredisson/redisson/internal/lua/luatest"
)

// TestScriptText: every script of the package sends the text (SHA1) it
// always has; Redis, the interop records and Java peers know it by it.
func TestScriptText(t *testing.T) {
	luatest.Check(t, "localcache",
		addAndGetScript,
		clearReleaseScript,
		deleteScript,
		fastPutIfAbsentScript,
		fastPutIfExistsScript,
		fastPutScript,
		fastRemoveLogged,
		fastRemoveScript,
		fastReplaceScript,
		putAllScript,
		putIfAbsentScript,
		putIfExistsScript,
		putScript,
		readAllScript,
		removeScript,
		removeValueScript,
		replaceScript,
		replaceValueScript,
	)
}
