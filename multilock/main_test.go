package multilock_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/goredisson/redisson/internal/redistest"
)

// TestMain starts three private redis-servers for the package, as a user's
// deployment would have them, and puts the first one's address in
// REDIS_ADDR and all three, comma-separated, in REDLOCK_ADDRS, where the
// Examples find them as a user's program would. Tests that need servers of
// their own still start them.
func TestMain(m *testing.M) {
	var servers []*redistest.Server
	stop := func() {
		for _, s := range servers {
			if err := s.Stop(); err != nil {
				fmt.Fprintln(os.Stderr, "TestMain:", err)
			}
		}
	}
	fail := func(err error) {
		fmt.Fprintln(os.Stderr, "TestMain:", err)
		stop()
		os.Exit(1)
	}
	addrs := make([]string, 0, 3)
	for range 3 {
		srv, err := redistest.Start(context.Background(), redistest.Options{})
		if err != nil {
			fail(err)
		}
		servers = append(servers, srv)
		addrs = append(addrs, srv.Addr())
	}
	if err := os.Setenv("REDIS_ADDR", addrs[0]); err != nil {
		fail(err)
	}
	if err := os.Setenv("REDLOCK_ADDRS", strings.Join(addrs, ",")); err != nil {
		fail(err)
	}
	code := m.Run()
	stop()
	os.Exit(code)
}
