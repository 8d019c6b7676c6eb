package latch_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/redistest"
)

// A count-down Redis refused before running it (OOM, an ACL on the key)
// says the count is unchanged and may be sent again; the same CountDown
// succeeds once Redis accepts, and the count is whole. One that reached
// zero but whose message the ACL refused says it happened.
func TestCountDownRefused(t *testing.T) {
	ctx := context.Background()
	srv := redistest.StartFullable(t)
	admin := redistest.Client(t, srv)
	redistest.SetUser(t, admin, "app", "~*", "&*", "+@all")
	c, err := redisson.New(redistest.UserClient(t, srv, "app"))
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	l := c.CountDownLatch("app:latch")
	ok, err := l.TrySetCount(ctx, 3)
	require.NoError(t, err)
	require.True(t, ok)

	free := redistest.Fill(t, admin)
	err = l.CountDown(ctx)
	require.ErrorContains(t, err, "OOM")
	require.ErrorIs(t, err, redisson.ErrReleaseRefused)
	require.ErrorContains(t, err, "count is unchanged")
	free()
	require.NoError(t, l.CountDown(ctx))
	n, err := l.Count(ctx)
	require.NoError(t, err)
	require.Equal(t, int64(2), n)

	redistest.SetUser(t, admin, "app", "~other:*", "&*", "+@all")
	err = l.CountDown(ctx)
	require.ErrorIs(t, err, redisson.ErrNoPermission)
	require.ErrorIs(t, err, redisson.ErrReleaseRefused)
	require.ErrorContains(t, err, "count is unchanged")
	redistest.SetUser(t, admin, "app", "~*", "&*", "+@all")
	require.NoError(t, l.CountDown(ctx))
	n, err = l.Count(ctx)
	require.NoError(t, err)
	require.Equal(t, int64(1), n)

	redistest.SetUser(t, admin, "app", "~*", "&other:*", "+@all")
	err = l.CountDown(ctx)
	require.ErrorIs(t, err, redisson.ErrNoPermission)
	require.NotErrorIs(t, err, redisson.ErrReleaseRefused)
	require.ErrorContains(t, err, "count-down happened")
	n, err = l.Count(ctx)
	require.NoError(t, err)
	require.Equal(t, int64(0), n)
}
