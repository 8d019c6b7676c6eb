package multilock_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/lockable"
)

// newClient returns a Client over its own go-redis client to srv; both are
// closed when the test ends.
func newClient(t testing.TB, srv *redistest.Server, opts ...redisson.Option) *redisson.Client {
	t.Helper()
	rdb := redistest.Client(t, srv)
	c, err := redisson.New(rdb, opts...)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// rlocks returns the RLocks called names of c as multi-lock members.
func rlocks(c *redisson.Client, names ...string) []lockable.Lock {
	out := make([]lockable.Lock, len(names))
	for i, n := range names {
		out[i] = c.Lock(n)
	}
	return out
}

// ended reports whether done is closed.
func ended(done <-chan struct{}) bool {
	select {
	case <-done:
		return true
	default:
		return false
	}
}

// rlocksOf returns the RLock called name of each client as multi-lock
// members.
func rlocksOf(cs []*redisson.Client, name string) []lockable.Lock {
	out := make([]lockable.Lock, len(cs))
	for i, c := range cs {
		out[i] = c.Lock(name)
	}
	return out
}
