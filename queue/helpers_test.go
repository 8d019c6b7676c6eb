package queue_test

import (
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/redistest"
)

// within bounds every wait for something to happen: a hang guard, not a
// timing assertion.
const within = 10 * time.Second

// newClient returns a Client over its own go-redis client to srv; both are
// closed when the test ends.
func newClient(t testing.TB, srv *redistest.Server, opts ...redisson.Option) *redisson.Client {
	t.Helper()
	c, err := redisson.New(redistest.Client(t, srv), opts...)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// list returns the list key as raw strings.
func list(t testing.TB, raw *redis.Client, key string) []string {
	t.Helper()
	l, err := raw.LRange(t.Context(), key, 0, -1).Result()
	require.NoError(t, err)
	return l
}
