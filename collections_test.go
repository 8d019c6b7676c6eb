package redisson_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/codec"
	"github.com/goredisson/redisson/internal/redistest"
)

// The client hands out collections on its own connection, and their calls
// fail with ErrClosed once it is closed.
func TestCollectionsFromClient(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	c, err := redisson.New(redistest.Client(t, srv))
	require.NoError(t, err)
	ctx := t.Context()

	m := redisson.NewMap[string, string](c, "m", codec.String())
	l := redisson.NewList[string](c, "l", codec.String())
	s := redisson.NewSet[string](c, "s", codec.String())
	z := redisson.NewScoredSortedSet[string](c, "z", codec.String())
	require.Equal(t, []string{"m", "l", "s", "z"}, []string{m.Name(), l.Name(), s.Name(), z.Name()})

	_, err = m.FastPut(ctx, "k", "v")
	require.NoError(t, err)
	require.NoError(t, l.Add(ctx, "x"))
	_, err = s.Add(ctx, "x")
	require.NoError(t, err)
	_, err = z.Add(ctx, 1, "x")
	require.NoError(t, err)
	for key, typ := range map[string]string{"m": "hash", "l": "list", "s": "set", "z": "zset"} {
		require.Equal(t, typ, raw.Type(ctx, key).Val(), key)
	}

	require.NoError(t, c.Close())
	sizes := map[string]func() (int64, error){
		"map":               func() (int64, error) { return m.Size(ctx) },
		"list":              func() (int64, error) { return l.Size(ctx) },
		"set":               func() (int64, error) { return s.Size(ctx) },
		"scored sorted set": func() (int64, error) { return z.Size(ctx) },
	}
	for kind, size := range sizes {
		_, err := size()
		require.ErrorIs(t, err, redisson.ErrClosed, kind)
	}
}
