package bits_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/bits"
	"github.com/goredisson/redisson/internal/redistest"
)

func newClient(t *testing.T, srv *redistest.Server) *redisson.Client {
	t.Helper()
	c, err := redisson.New(redistest.Client(t, srv), redisson.WithRegistration(redisson.RegistrationOptions{Disabled: true}))
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// TestBitSetOperations: the operations on one key, the stored bytes after
// each, and what a second client reads.
func TestBitSetOperations(t *testing.T) {
	ctx := context.Background()
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	c1, c2 := newClient(t, srv), newClient(t, srv)
	bs, other := c1.BitSet("bs"), c2.BitSet("bs")

	prev, err := bs.Set(ctx, 1, true)
	require.NoError(t, err)
	require.False(t, prev)
	require.NoError(t, bs.SetMany(ctx, true, 9, 15))
	got, err := other.GetMany(ctx, 1, 2, 9, 15)
	require.NoError(t, err)
	require.Equal(t, []bool{true, false, true, true}, got)
	stored, err := raw.Get(ctx, "bs").Bytes()
	require.NoError(t, err)
	require.Equal(t, []byte{0x40, 0x41}, stored)

	var idx []int64
	for i, err := range other.SetBits(ctx) {
		require.NoError(t, err)
		idx = append(idx, i)
	}
	require.Equal(t, []int64{1, 9, 15}, idx)

	n, err := other.Length(ctx)
	require.NoError(t, err)
	require.EqualValues(t, 16, n)
	require.NoError(t, bs.SetRange(ctx, 1, 2, false))
	card, err := other.Cardinality(ctx)
	require.NoError(t, err)
	require.EqualValues(t, 2, card)

	old, err := bs.SetUnsigned(ctx, 4, 16, 9)
	require.NoError(t, err)
	require.Zero(t, old)
	v, err := other.IncrementSigned(ctx, 4, 16, 1) // 9+1 = 10 = -6 as i4
	require.NoError(t, err)
	require.EqualValues(t, -6, v)
	u, err := other.GetUnsigned(ctx, 4, 16)
	require.NoError(t, err)
	require.EqualValues(t, 10, u)

	require.NoError(t, raw.Set(ctx, "mask", []byte{0xff, 0x00, 0xff}, 0).Err())
	size, err := bs.And(ctx, "mask")
	require.NoError(t, err)
	require.EqualValues(t, 3, size)
	stored, err = bs.Bytes(ctx)
	require.NoError(t, err)
	require.Equal(t, []byte{0x00, 0x00, 0xa0}, stored)

	require.NoError(t, bs.Clear(ctx))
	stored, err = other.Bytes(ctx)
	require.NoError(t, err)
	require.Nil(t, stored)
	n, err = other.Length(ctx)
	require.NoError(t, err)
	require.Zero(t, n)
}

// TestBitSetErrors: bad input fails before anything is sent; a key of
// another type is ErrWrongType; after Close every call is ErrClosed; a
// cancelled context is context.Canceled.
func TestBitSetErrors(t *testing.T) {
	ctx := context.Background()
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	require.NoError(t, raw.HSet(ctx, "h", "f", "v").Err())
	c := newClient(t, srv)
	bs := c.BitSet("bs")
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	var nilCtx context.Context
	for _, tc := range []struct {
		name string
		err  error
		is   error
	}{
		{"negative index", second(bs.Set(ctx, -1, true)), redisson.ErrInvalidArgument},
		{"range backwards", bs.SetRange(ctx, 5, 4, true), redisson.ErrInvalidArgument},
		{"signed 65", second(bs.GetSigned(ctx, 65, 0)), redisson.ErrInvalidArgument},
		{"unsigned 64", second(bs.GetUnsigned(ctx, 64, 0)), redisson.ErrInvalidArgument},
		{"unsigned 0", second(bs.SetUnsigned(ctx, 0, 0, 1)), redisson.ErrInvalidArgument},
		{"empty name", second(c.BitSet("").Get(ctx, 0)), redisson.ErrInvalidName},
		{"nil handle", second((*bits.BitSet)(nil).Cardinality(ctx)), redisson.ErrInvalidArgument},
		{"nil ctx", second(bs.Cardinality(nilCtx)), redisson.ErrInvalidArgument},
		{"hash", second(c.BitSet("h").Set(ctx, 1, true)), redisson.ErrWrongType},
		{"hash length", second(c.BitSet("h").Length(ctx)), redisson.ErrWrongType},
		{"cancelled", second(bs.Get(cancelled, 1)), context.Canceled},
	} {
		require.ErrorIs(t, tc.err, tc.is, tc.name)
	}
	n, err := raw.Exists(ctx, "bs").Result()
	require.NoError(t, err)
	require.Zero(t, n)
	require.NoError(t, c.Close())
	_, err = bs.Get(ctx, 1)
	require.ErrorIs(t, err, redisson.ErrClosed)
	require.EqualError(t, err, `bit set "bs": get: `+redisson.ErrClosed.Error())
}

func second[T any](_ T, err error) error { return err }
