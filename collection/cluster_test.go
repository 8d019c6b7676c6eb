package collection_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/codec"
)

// On a cluster every call, scripts and scans included, reaches the master
// of its key's slot: names spread over all three masters work alike.
func TestCluster(t *testing.T) {
	cl := startCluster(t)
	c, err := redisson.New(cl)
	require.NoError(t, err)
	defer c.Close()
	ctx := t.Context()
	for i := range 6 {
		name := fmt.Sprintf("c%d", i)
		m := redisson.NewMap[string, int32](c, "m"+name, codec.JsonJackson(nil))
		_, _, err := m.Put(ctx, "a", 1)
		require.NoError(t, err)
		n, err := m.AddAndGet(ctx, "a", 2)
		require.NoError(t, err)
		require.Equal(t, int32(3), n)
		for e, err := range m.Entries(ctx) {
			require.NoError(t, err)
			require.Equal(t, int32(3), e.Value)
		}
		l := redisson.NewList[string](c, "l"+name, codec.String())
		require.NoError(t, l.AddAll(ctx, "a", "c"))
		require.NoError(t, l.Insert(ctx, 1, "b"))
		all, err := l.ReadAll(ctx)
		require.NoError(t, err)
		require.Equal(t, []string{"a", "b", "c"}, all)
		z := redisson.NewScoredSortedSet[string](c, "z"+name, codec.String())
		_, err = z.Add(ctx, 1, "x")
		require.NoError(t, err)
		v, ok, err := z.PollFirst(ctx)
		require.NoError(t, err)
		require.True(t, ok)
		require.Equal(t, "x", v)
		s := redisson.NewSet[string](c, "s"+name, codec.String())
		_, err = s.AddAll(ctx, "a", "b")
		require.NoError(t, err)
		count := 0
		for _, err := range s.Values(ctx) {
			require.NoError(t, err)
			count++
		}
		require.Equal(t, 2, count)
	}
}
