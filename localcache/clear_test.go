package localcache_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson/localcache"
)

// ClearLocalCache returns once every other instance cleared: each
// released a permit of the clear's semaphore, which is gone after.
func TestClearLocalCacheWaitsForTheOthers(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	a := newMap(t, e.c1, "clr", localcache.Options{})
	b := newMap(t, e.c2, "clr", localcache.Options{})
	c := newMap(t, e.client(t, "c3"), "clr", localcache.Options{})
	require.NoError(t, e.raw.HSet(ctx, "clr", "k", "v").Err())
	for _, m := range []*lcMap{a, b, c} {
		_, _, err := m.Get(ctx, "k")
		require.NoError(t, err)
		require.Equal(t, 1, m.CachedSize())
	}
	require.NoError(t, a.ClearLocalCache(ctx))
	// No wait here: the call returned after b and c released.
	require.Zero(t, a.CachedSize())
	require.Zero(t, b.CachedSize())
	require.Zero(t, c.CachedSize())
	keys, err := e.raw.Keys(ctx, "clr:clear:*").Result()
	require.NoError(t, err)
	require.Empty(t, keys, "the semaphore was deleted")
	require.Equal(t, "v", e.raw.HGet(ctx, "clr", "k").Val(), "the hash is not touched")

	none := newMap(t, e.c1, "clr:none", localcache.Options{Sync: localcache.SyncNone})
	require.NoError(t, none.ClearLocalCache(ctx), "SyncNone: nothing published, nothing awaited")
}

// A subscriber that never answers (a pattern subscriber PUBLISH counts)
// makes the caller wait; its context ends the wait.
func TestClearLocalCacheWaitEndsWithContext(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	a := newMap(t, e.c1, "mute", localcache.Options{})
	require.NoError(t, a.Start(ctx))
	ps := e.raw.PSubscribe(ctx, "{mute}:*")
	t.Cleanup(func() { _ = ps.Close() })
	_, err := ps.Receive(ctx)
	require.NoError(t, err)
	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	err = a.ClearLocalCache(short)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.Contains(t, err.Error(), `local cached map "mute": clear local cache:`)
	keys, err := e.raw.Keys(ctx, "mute:clear:*").Result()
	require.NoError(t, err)
	require.Empty(t, keys, "a failed clear leaves no semaphore behind")
}
