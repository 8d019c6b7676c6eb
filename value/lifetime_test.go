package value_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/codec"
	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/source"
	"github.com/goredisson/redisson/value"
)

// lifetimeOps are every operation of a bucket and a counter, for the
// lifetime tests.
func lifetimeOps(ctx context.Context, b *value.Bucket[string], a *value.AtomicLong) []struct {
	name string
	op   func() error
} {
	return []struct {
		name string
		op   func() error
	}{
		{`bucket "b": get`, func() error { _, _, err := b.Get(ctx); return err }},
		{`bucket "b": set`, func() error { return b.Set(ctx, "v") }},
		{`bucket "b": set with TTL`, func() error { return b.SetTTL(ctx, "v", time.Minute) }},
		{`bucket "b": set if absent`, func() error { _, err := b.SetIfAbsent(ctx, "v"); return err }},
		{`bucket "b": set if absent with TTL`, func() error { _, err := b.SetIfAbsentTTL(ctx, "v", time.Minute); return err }},
		{`bucket "b": set if exists`, func() error { _, err := b.SetIfExists(ctx, "v"); return err }},
		{`bucket "b": set if exists with TTL`, func() error { _, err := b.SetIfExistsTTL(ctx, "v", time.Minute); return err }},
		{`bucket "b": compare and set`, func() error { _, err := b.CompareAndSet(ctx, "v", "w"); return err }},
		{`bucket "b": get and set`, func() error { _, _, err := b.GetAndSet(ctx, "v"); return err }},
		{`bucket "b": get and set with TTL`, func() error { _, _, err := b.GetAndSetTTL(ctx, "v", time.Minute); return err }},
		{`bucket "b": get and delete`, func() error { _, _, err := b.GetAndDelete(ctx); return err }},
		{`bucket "b": delete`, func() error { _, err := b.Delete(ctx); return err }},
		{`bucket "b": remain TTL`, func() error { _, err := b.RemainTTL(ctx); return err }},
		{`atomic long "a": get`, func() error { _, err := a.Get(ctx); return err }},
		{`atomic long "a": set`, func() error { return a.Set(ctx, 1) }},
		{`atomic long "a": add and get`, func() error { _, err := a.AddAndGet(ctx, 2); return err }},
		{`atomic long "a": add and get`, func() error { _, err := a.GetAndAdd(ctx, 2); return err }},
		{`atomic long "a": increment and get`, func() error { _, err := a.IncrementAndGet(ctx); return err }},
		{`atomic long "a": decrement and get`, func() error { _, err := a.DecrementAndGet(ctx); return err }},
		{`atomic long "a": get and set`, func() error { _, err := a.GetAndSet(ctx, 3); return err }},
		{`atomic long "a": compare and set`, func() error { _, err := a.CompareAndSet(ctx, 3, 4); return err }},
		{`atomic long "a": get and delete`, func() error { _, err := a.GetAndDelete(ctx); return err }},
		{`atomic long "a": delete`, func() error { _, err := a.Delete(ctx); return err }},
		{`atomic long "a": remain TTL`, func() error { _, err := a.RemainTTL(ctx); return err }},
	}
}

// TestClientLifetime: a client's objects work while it lives; once it is
// closed, every call fails with ErrClosed, naming the operation, and sends
// nothing. Objects of another client on the same server go on.
func TestClientLifetime(t *testing.T) {
	ctx := context.Background()
	srv := redistest.StartServer(t)
	cmds := monitor(t, srv)
	c, err := redisson.New(redistest.Client(t, srv), redisson.WithRegistration(redisson.RegistrationOptions{Disabled: true}))
	require.NoError(t, err)
	b := value.NewBucket[string](c.Source(), "b", codec.String())
	a := value.NewAtomicLong(c.Source(), "a")
	ops := lifetimeOps(ctx, b, a)

	for _, tc := range ops {
		var err error
		sent := cmds.of(t, func() { err = tc.op() })
		require.NoError(t, err, "%s while alive", tc.name)
		require.NotEmpty(t, sent, "%s while alive: sent nothing", tc.name)
	}

	require.NoError(t, c.Close())
	for _, tc := range ops {
		var err error
		sent := cmds.of(t, func() { err = tc.op() })
		require.ErrorIs(t, err, core.ErrClosed, tc.name)
		require.EqualError(t, err, tc.name+": "+core.ErrClosed.Error())
		require.Empty(t, sent, "%s after Close: sent %v", tc.name, sent)
	}

	// The same names on another client still work.
	other := sourceOf(t, srv)
	free := lifetimeOps(ctx, value.NewBucket[string](other, "b", codec.String()), value.NewAtomicLong(other, "a"))
	for _, tc := range free {
		require.NoError(t, tc.op(), "%s on another client", tc.name)
	}
}

// TestClientLifetimeCases: what a live client, a closed client and a nil
// or zero source give, and that an invalid handle reports its own error
// first.
func TestClientLifetimeCases(t *testing.T) {
	ctx := context.Background()
	srv := redistest.StartServer(t)
	live := sourceOf(t, srv)
	c, err := redisson.New(redistest.Client(t, srv), redisson.WithRegistration(redisson.RegistrationOptions{Disabled: true}))
	require.NoError(t, err)
	require.NoError(t, c.Close())
	closed := c.Source()
	for _, tc := range []struct {
		name string
		b    *value.Bucket[string]
		a    *value.AtomicLong
		want error // nil: the call succeeds
	}{
		{"live client", value.NewBucket[string](live, "b", codec.String()), value.NewAtomicLong(live, "a"), nil},
		{"closed client", value.NewBucket[string](closed, "b", codec.String()), value.NewAtomicLong(closed, "a"), core.ErrClosed},
		{"nil source", value.NewBucket[string](nil, "b", codec.String()), value.NewAtomicLong(nil, "a"), core.ErrInvalidArgument},
		{"zero source", value.NewBucket[string](new(source.Source), "b", codec.String()), value.NewAtomicLong(new(source.Source), "a"), core.ErrInvalidArgument},
		{"invalid name first", value.NewBucket[string](closed, "", codec.String()), value.NewAtomicLong(closed, ""), core.ErrInvalidName},
	} {
		t.Run(tc.name, func(t *testing.T) {
			berr := tc.b.Set(ctx, "v")
			_, aerr := tc.a.IncrementAndGet(ctx)
			if tc.want == nil {
				require.NoError(t, berr)
				require.NoError(t, aerr)
				return
			}
			require.ErrorIs(t, berr, tc.want)
			require.ErrorIs(t, aerr, tc.want)
		})
	}
}
