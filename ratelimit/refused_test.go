package ratelimit_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/ratelimit"
)

// A Release Redis refused before running it (OOM, an ACL on the keys)
// says nothing was given back, and the same Release succeeds once Redis
// accepts: the window is whole again.
func TestReleaseRefused(t *testing.T) {
	ctx := context.Background()
	srv := redistest.StartFullable(t)
	admin := redistest.Client(t, srv)
	redistest.SetUser(t, admin, "app", "~*", "&*", "+@all")
	c, err := redisson.New(redistest.UserClient(t, srv, "app"))
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	l := c.RateLimiter("app:rl")
	_, err = l.TrySetRate(ctx, ratelimit.Overall, 2, time.Hour)
	require.NoError(t, err)
	ok, err := l.TryAcquire(ctx, 2)
	require.NoError(t, err)
	require.True(t, ok)

	free := redistest.Fill(t, admin)
	err = l.Release(ctx, 1)
	require.ErrorContains(t, err, "OOM")
	require.ErrorIs(t, err, redisson.ErrReleaseRefused)
	require.ErrorContains(t, err, "none were given back")
	free()
	require.NoError(t, l.Release(ctx, 1))

	redistest.SetUser(t, admin, "app", "~other:*", "&*", "+@all")
	err = l.Release(ctx, 1)
	require.ErrorIs(t, err, redisson.ErrNoPermission)
	require.ErrorIs(t, err, redisson.ErrReleaseRefused)
	require.ErrorContains(t, err, "none were given back")
	redistest.SetUser(t, admin, "app", "~*", "&*", "+@all")
	require.NoError(t, l.Release(ctx, 1))

	n, err := l.AvailablePermits(ctx)
	require.NoError(t, err)
	require.Equal(t, int64(2), n, "2 of 2 permits")
}
