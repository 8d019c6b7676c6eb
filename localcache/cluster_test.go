package localcache_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/localcache"
)

// On a cluster each map's scripts run on the master of its slot (the map,
// its topic and its log share it) and the invalidation reaches the other
// client's near cache wherever its subscription is.
func TestCluster(t *testing.T) {
	cl := redistest.StartCluster(t, 3)
	ctx := t.Context()
	newC := func() *redisson.Client {
		c, err := redisson.New(cl.Client(t))
		require.NoError(t, err)
		t.Cleanup(func() { _ = c.Close() })
		return c
	}
	c1, c2 := newC(), newC()
	for i := range 4 {
		name := fmt.Sprintf("cl%d", i)
		a := newMap(t, c1, name, localcache.Options{Reconnection: localcache.ReconnectLoad})
		b := newMap(t, c2, name, localcache.Options{Reconnection: localcache.ReconnectLoad})
		_, _, err := a.Put(ctx, "k", "v1")
		require.NoError(t, err)
		v, _, err := b.Get(ctx, "k")
		require.NoError(t, err)
		require.Equal(t, "v1", v)
		require.NoError(t, a.PutAll(ctx, map[string]string{"k": "v2", "j": "x"}))
		redistest.Eventually(t, within, "b's entry dropped", func() bool { _, ok := cachedValue(b, "k"); return !ok })
		n, err := b.FastRemove(ctx, "k", "j")
		require.NoError(t, err)
		require.Equal(t, int64(2), n)
		existed, err := b.Delete(ctx)
		require.NoError(t, err)
		require.True(t, existed, "the updates log")
	}
}
