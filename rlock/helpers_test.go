package rlock_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/rlock"
)

// newClient returns a Client over its own go-redis client to srv; both are
// closed when the test ends. It stays here, not in redistest: redistest must
// not import the root package (the in-package tests of core and engine
// import redistest, and the root package imports them).
func newClient(t testing.TB, srv *redistest.Server, opts ...redisson.Option) *redisson.Client {
	t.Helper()
	rdb := redistest.Client(t, srv)
	c, err := redisson.New(rdb, opts...)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// ended reports whether h's Done channel is closed.
func ended(h *rlock.Hold) bool {
	select {
	case <-h.Done():
		return true
	default:
		return false
	}
}
