package fencedlock_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/redistest"
)

// newClient returns a Client over its own go-redis client to srv; both are
// closed when the test ends (redistest must not import the root package).
func newClient(t testing.TB, srv *redistest.Server, opts ...redisson.Option) *redisson.Client {
	t.Helper()
	rdb := redistest.Client(t, srv)
	c, err := redisson.New(rdb, opts...)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return c
}
