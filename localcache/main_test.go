package localcache_test

import (
	"os"
	"testing"

	"github.com/goredisson/redisson/internal/redistest"
)

// TestMain starts the private redis-server the Example reaches through
// REDIS_ADDR, as a user's program would.
func TestMain(m *testing.M) { os.Exit(redistest.Main(m, 1)) }
