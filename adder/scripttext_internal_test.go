package adder

import (
	"testing"

	"github.com/goredisson/redisson/internal/lua/luatest"
)

// TestScriptText: the package's script sends the text (SHA1) Redisson's
// does.
func TestScriptText(t *testing.T) {
	luatest.Check(t, "adder", getAndDeleteScript)
}
