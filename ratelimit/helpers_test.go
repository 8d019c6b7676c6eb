package ratelimit_test

import (
	"context"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

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
