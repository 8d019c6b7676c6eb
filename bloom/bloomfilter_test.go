package bloom_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/bloom"
	"github.com/goredisson/redisson/codec"
	"github.com/goredisson/redisson/internal/redistest"
)

func newClient(t *testing.T, srv *redistest.Server) *redisson.Client {
	t.Helper()
	c, err := redisson.New(redistest.Client(t, srv), redisson.WithRegistration(redisson.RegistrationOptions{Disabled: true}))
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// TestGoldenIndexes: Redisson's size, hash count and indexes for the
// interop README's golden elements (StringCodec bytes).
func TestGoldenIndexes(t *testing.T) {
	size, hashes := bloom.Sizing(100, 0.01)
	require.Equal(t, int64(958), size)
	require.Equal(t, 7, hashes)
	for _, tc := range []struct {
		elem string
		want []int64
	}{
		{"e1", []int64{690, 67, 757, 134, 824, 201, 891}},
		{"e2", []int64{240, 660, 938, 400, 678, 140, 418}},
	} {
		require.Equal(t, tc.want, bloom.Indexes([]byte(tc.elem), size, hashes), tc.elem)
	}
	size, hashes = bloom.Sizing(200, 0.03) // the record's second config
	require.Equal(t, int64(1459), size)
	require.Equal(t, 5, hashes)
}

// TestBloomFilterTwoClients: one client initialises and adds, another
// (a fresh handle, which reads the stored config) finds every element,
// and a false probability of 1e-4 is stored as Java writes it.
func TestBloomFilterTwoClients(t *testing.T) {
	ctx := context.Background()
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	c1, c2 := newClient(t, srv), newClient(t, srv)
	a := redisson.NewBloomFilter[string](c1, "seen", codec.String())
	ok, err := a.TryInit(ctx, 1000, 0.0001)
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, "1.0E-4", raw.HGet(ctx, "{seen}:config", "falseProbability").Val())
	var elems []string
	for i := range 200 {
		elems = append(elems, fmt.Sprintf("e%d", i))
	}
	n, err := a.AddAll(ctx, elems...)
	require.NoError(t, err)
	require.Equal(t, int64(200), n)

	b := redisson.NewBloomFilter[string](c2, "seen", codec.String())
	found, err := b.ContainsAll(ctx, elems...)
	require.NoError(t, err)
	require.Equal(t, int64(200), found)
	again, err := b.Add(ctx, "e7")
	require.NoError(t, err)
	require.False(t, again, "every bit of e7 was set")
	count, err := b.Count(ctx)
	require.NoError(t, err)
	require.InDelta(t, 200, count, 5)
	p, err := b.FalseProbability(ctx)
	require.NoError(t, err)
	require.Equal(t, 0.0001, p)
	ok, err = b.TryInit(ctx, 10, 0.5)
	require.NoError(t, err)
	require.False(t, ok, "the config exists")
	_, err = b.Add(ctx, "x")
	require.ErrorIs(t, err, bloom.ErrConfigChanged)
	in, err := b.Contains(ctx, "e1")
	require.NoError(t, err)
	require.False(t, in, "a handle under another config answers false, as Redisson's")

	deleted, err := a.Delete(ctx)
	require.NoError(t, err)
	require.True(t, deleted)
	require.Zero(t, raw.Exists(ctx, "seen", "{seen}:config").Val())
	_, err = redisson.NewBloomFilter[string](c1, "seen", codec.String()).Add(ctx, "e1")
	require.ErrorIs(t, err, bloom.ErrNotInitialized)
	_, err = a.Size(ctx)
	require.ErrorIs(t, err, bloom.ErrNotInitialized)
}

func TestBloomFilterErrors(t *testing.T) {
	ctx := context.Background()
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	require.NoError(t, raw.Set(ctx, "{s}:config", "plain", 0).Err())
	require.NoError(t, raw.HSet(ctx, "{h}:config", "size", "958", "hashIterations", "7").Err())
	require.NoError(t, raw.HSet(ctx, "h", "f", "v").Err())
	c := newClient(t, srv)
	f := redisson.NewBloomFilter[*string](c, "x", codec.String())
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	e := "e"
	for _, tc := range []struct {
		name string
		err  error
		is   error
	}{
		{"nil element", second(f.Add(ctx, nil)), redisson.ErrInvalidArgument},
		{"nil codec", second(redisson.NewBloomFilter[string](c, "x", nil).Count(ctx)), redisson.ErrInvalidArgument},
		{"empty name", second(redisson.NewBloomFilter[string](c, "", codec.String()).Count(ctx)), redisson.ErrInvalidName},
		{"nil handle", second((*bloom.BloomFilter[string])(nil).Count(ctx)), redisson.ErrInvalidArgument},
		{"zero insertions", second(f.TryInit(ctx, 0, 0.01)), redisson.ErrInvalidArgument},
		{"probability above 1", second(f.TryInit(ctx, 10, 1.5)), redisson.ErrInvalidArgument},
		{"negative probability", second(f.TryInit(ctx, 10, -0.1)), redisson.ErrInvalidArgument},
		{"too big", second(f.TryInit(ctx, 1<<40, 0.0001)), redisson.ErrInvalidArgument},
		{"not initialized", second(f.Contains(ctx, &e)), bloom.ErrNotInitialized},
		{"count not initialized", second(f.Count(ctx)), bloom.ErrNotInitialized},
		{"config a string", second(redisson.NewBloomFilter[string](c, "s", codec.String()).Add(ctx, "a")), redisson.ErrWrongType},
		{"bits a hash", second(redisson.NewBloomFilter[string](c, "h", codec.String()).Add(ctx, "a")), redisson.ErrWrongType},
		{"cancelled", second(f.Count(cancelled)), context.Canceled},
	} {
		require.ErrorIs(t, tc.err, tc.is, tc.name)
	}
	require.NoError(t, c.Close())
	_, err := f.Count(ctx)
	require.ErrorIs(t, err, redisson.ErrClosed)
	require.EqualError(t, err, fmt.Sprintf(`bloom filter "x": count: %v`, redisson.ErrClosed))
}

func second[T any](_ T, err error) error { return err }
