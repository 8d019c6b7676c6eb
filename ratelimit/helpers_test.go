package ratelimit_test

import (
	"context"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/redistest"
)

// newClient returns a Client over its own go-redis client to srv; both are
// closed when the test ends.
func newClient(t testing.TB, srv *redistest.Server, opts ...redisson.Option) *redisson.Client {
	t.Helper()
	c, err := redisson.New(redistest.Client(t, srv), opts...)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// rawValue reads a key raw: its value, or "" when absent.
func rawValue(t testing.TB, raw *redis.Client, key string) string {
	t.Helper()
	v, err := raw.Get(context.Background(), key).Result()
	if err == redis.Nil {
		return ""
	}
	require.NoError(t, err)
	return v
}
