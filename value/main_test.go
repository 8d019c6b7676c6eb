package value_test

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/goredisson/redisson/internal/redistest"
)

// TestMain starts one private redis-server for the package and puts its
// address in REDIS_ADDR, where the Examples find it as a user's program
// would. Tests that need servers of their own still start them.
func TestMain(m *testing.M) {
	srv, err := redistest.Start(context.Background(), redistest.Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, "TestMain:", err)
		os.Exit(1)
	}
	if err := os.Setenv("REDIS_ADDR", srv.Addr()); err != nil {
		fmt.Fprintln(os.Stderr, "TestMain:", err)
		_ = srv.Stop()
		os.Exit(1)
	}
	code := m.Run()
	if err := srv.Stop(); err != nil {
		fmt.Fprintln(os.Stderr, "TestMain:", err)
	}
	os.Exit(code)
}
