package hll_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/codec"
	"github.com/goredisson/redisson/hll"
	"github.com/goredisson/redisson/internal/redistest"
)

func newClient(t *testing.T, srv *redistest.Server) *redisson.Client {
	t.Helper()
	c, err := redisson.New(redistest.Client(t, srv), redisson.WithRegistration(redisson.RegistrationOptions{Disabled: true}))
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// TestHyperLogLogCounts: two clients count into one key and a second one;
// the estimates of small sets are exact, the union counts each element
// once, a merge stores it.
func TestHyperLogLogCounts(t *testing.T) {
	ctx := context.Background()
	srv := redistest.StartServer(t)
	c1, c2 := newClient(t, srv), newClient(t, srv)
	a := redisson.NewHyperLogLog[int64](c1, "visits:a", codec.Long())
	b := redisson.NewHyperLogLog[int64](c2, "visits:b", codec.Long())
	for i := range int64(100) {
		_, err := a.Add(ctx, i)
		require.NoError(t, err)
	}
	changed, err := b.AddAll(ctx, 50, 150, 151)
	require.NoError(t, err)
	require.True(t, changed)
	changed, err = b.AddAll(ctx)
	require.NoError(t, err)
	require.False(t, changed)

	for _, tc := range []struct {
		name string
		got  func() (int64, error)
		want int64
	}{
		{"a", func() (int64, error) { return redisson.NewHyperLogLog[int64](c2, "visits:a", codec.Long()).Count(ctx) }, 100},
		{"b", func() (int64, error) { return b.Count(ctx) }, 3},
		{"a with b", func() (int64, error) { return a.CountWith(ctx, "visits:b") }, 102},
		{"none", func() (int64, error) {
			return redisson.NewHyperLogLog[int64](c1, "visits:none", codec.Long()).Count(ctx)
		}, 0},
	} {
		n, err := tc.got()
		require.NoError(t, err, tc.name)
		require.Equal(t, tc.want, n, tc.name)
	}
	require.NoError(t, b.MergeWith(ctx, "visits:a"))
	n, err := b.Count(ctx)
	require.NoError(t, err)
	require.EqualValues(t, 102, n)
	deleted, err := b.Delete(ctx)
	require.NoError(t, err)
	require.True(t, deleted)
}

// TestHyperLogLogErrors: bad input fails before anything is sent; a key of
// another type, or a string that is no HyperLogLog, is ErrWrongType; after
// Close every call is ErrClosed; a cancelled context is context.Canceled.
func TestHyperLogLogErrors(t *testing.T) {
	ctx := context.Background()
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	require.NoError(t, raw.HSet(ctx, "h", "f", "v").Err())
	require.NoError(t, raw.Set(ctx, "s", "plain", 0).Err())
	c := newClient(t, srv)
	h := redisson.NewHyperLogLog[*string](c, "x", codec.String())
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	for _, tc := range []struct {
		name string
		err  error
		is   error
	}{
		{"nil element", second(h.Add(ctx, nil)), redisson.ErrInvalidArgument},
		{"nil codec", second(redisson.NewHyperLogLog[string](c, "x", nil).Count(ctx)), redisson.ErrInvalidArgument},
		{"empty name", second(redisson.NewHyperLogLog[string](c, "", codec.String()).Count(ctx)), redisson.ErrInvalidName},
		{"nil handle", second((*hll.HyperLogLog[string])(nil).Count(ctx)), redisson.ErrInvalidArgument},
		{"hash", second(redisson.NewHyperLogLog[string](c, "h", codec.String()).Add(ctx, "a")), redisson.ErrWrongType},
		{"plain string", second(redisson.NewHyperLogLog[string](c, "s", codec.String()).Count(ctx)), redisson.ErrWrongType},
		{"merge plain string", redisson.NewHyperLogLog[string](c, "y", codec.String()).MergeWith(ctx, "s"), redisson.ErrWrongType},
		{"cancelled", second(h.Count(cancelled)), context.Canceled},
	} {
		require.ErrorIs(t, tc.err, tc.is, tc.name)
	}
	require.NoError(t, c.Close())
	_, err := h.Count(ctx)
	require.ErrorIs(t, err, redisson.ErrClosed)
	require.EqualError(t, err, fmt.Sprintf(`hyperloglog "x": count: %v`, redisson.ErrClosed))
}

func second[T any](_ T, err error) error { return err }
