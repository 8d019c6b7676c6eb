package queue_test

import (
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

// within bounds every wait for something to happen: a hang guard, not a
// timing assertion.
const within = 10 * time.Second

// list returns the list key as raw strings.
func list(t testing.TB, raw *redis.Client, key string) []string {
	t.Helper()
	l, err := raw.LRange(t.Context(), key, 0, -1).Result()
	require.NoError(t, err)
	return l
}
