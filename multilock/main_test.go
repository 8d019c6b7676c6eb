package multilock_test

import (
	"os"
	"testing"

	"github.com/goredisson/redisson/internal/redistest"
)

// TestMain starts the private redis-servers (three: a RedLock needs
// independent servers) the Examples reach through REDIS_ADDR and
// REDLOCK_ADDRS, as a user's program would.
func TestMain(m *testing.M) { os.Exit(redistest.Main(m, 3)) }
