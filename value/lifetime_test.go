package value_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson/codec"
	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/internal/redistest"
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

// TestWithLifetime: objects made WithLifetime work while it lasts; once it
// ends, every call fails with its cause, naming the operation, and sends
// nothing. Objects without the option, on the same go-redis client, go on.
func TestWithLifetime(t *testing.T) {
	ctx := context.Background()
	srv := redistest.StartServer(t)
	rdb := redistest.Client(t, srv)
	cmds := monitor(t, srv)
	errGone := errors.New("owner gone")
	life, end := context.WithCancelCause(context.Background())
	b := value.NewBucket[string](rdb, "b", codec.String(), value.WithLifetime(life))
	a := value.NewAtomicLong(rdb, "a", value.WithLifetime(life))
	ops := lifetimeOps(ctx, b, a)

	for _, tc := range ops {
		var err error
		sent := cmds.of(t, func() { err = tc.op() })
		require.NoError(t, err, "%s while alive", tc.name)
		require.NotEmpty(t, sent, "%s while alive: sent nothing", tc.name)
	}

	end(errGone)
	for _, tc := range ops {
		var err error
		sent := cmds.of(t, func() { err = tc.op() })
		require.ErrorIs(t, err, errGone, tc.name)
		require.EqualError(t, err, tc.name+": owner gone")
		require.Empty(t, sent, "%s after the lifetime: sent %v", tc.name, sent)
	}

	// The same names and client without a lifetime still work.
	free := lifetimeOps(ctx, value.NewBucket[string](rdb, "b", codec.String()), value.NewAtomicLong(rdb, "a", nil))
	for _, tc := range free {
		require.NoError(t, tc.op(), "%s without a lifetime", tc.name)
	}
}

// TestWithLifetimeCases: what each kind of lifetime gives, and that an
// invalid handle reports its own error first.
func TestWithLifetimeCases(t *testing.T) {
	ctx := context.Background()
	srv := redistest.StartServer(t)
	rdb := redistest.Client(t, srv)
	closed, closeIt := context.WithCancelCause(context.Background())
	closeIt(core.ErrClosed)
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	expired, cancel2 := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel2()
	for _, tc := range []struct {
		name string
		b    *value.Bucket[string]
		a    *value.AtomicLong
		want error // nil: the call succeeds
	}{
		{"nil lifetime", value.NewBucket[string](rdb, "b", codec.String(), value.WithLifetime(nil)), value.NewAtomicLong(rdb, "a", value.WithLifetime(nil)), nil},
		{"live lifetime", value.NewBucket[string](rdb, "b", codec.String(), value.WithLifetime(ctx)), value.NewAtomicLong(rdb, "a", value.WithLifetime(ctx)), nil},
		{"closed client", value.NewBucket[string](rdb, "b", codec.String(), value.WithLifetime(closed)), value.NewAtomicLong(rdb, "a", value.WithLifetime(closed)), core.ErrClosed},
		{"cancelled", value.NewBucket[string](rdb, "b", codec.String(), value.WithLifetime(canceled)), value.NewAtomicLong(rdb, "a", value.WithLifetime(canceled)), context.Canceled},
		{"deadline", value.NewBucket[string](rdb, "b", codec.String(), value.WithLifetime(expired)), value.NewAtomicLong(rdb, "a", value.WithLifetime(expired)), context.DeadlineExceeded},
		{"invalid name first", value.NewBucket[string](rdb, "", codec.String(), value.WithLifetime(closed)), value.NewAtomicLong(rdb, "", value.WithLifetime(closed)), core.ErrInvalidName},
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
