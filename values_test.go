package redisson_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/codec"
	"github.com/goredisson/redisson/internal/redistest"
)

// TestValuesAfterClose: the Client's buckets and counters, made before or
// after Close, fail with ErrClosed once it is closed and leave Redis alone;
// the go-redis client, which stays the caller's, still works.
func TestValuesAfterClose(t *testing.T) {
	ctx := context.Background()
	srv := redistest.StartServer(t)
	rdb := redistest.Client(t, srv)
	c, err := redisson.New(rdb)
	require.NoError(t, err)
	before := redisson.NewBucket[string](c, "b", codec.String())
	counter := c.AtomicLong("n")
	require.NoError(t, before.Set(ctx, "v"))
	_, err = counter.AddAndGet(ctx, 5)
	require.NoError(t, err)

	require.NoError(t, c.Close())
	after := redisson.NewBucket[string](c, "b", codec.String())
	for _, tc := range []struct {
		name string
		op   func() error
	}{
		{"bucket made before: get", func() error { _, _, err := before.Get(ctx); return err }},
		{"bucket made before: set", func() error { return before.Set(ctx, "w") }},
		{"bucket made before: set with TTL", func() error { return before.SetTTL(ctx, "w", time.Minute) }},
		{"bucket made before: compare-and-set", func() error { _, err := before.CompareAndSet(ctx, "v", "w"); return err }},
		{"bucket made before: delete", func() error { _, err := before.Delete(ctx); return err }},
		{"bucket made after: get", func() error { _, _, err := after.Get(ctx); return err }},
		{"bucket made after: get and delete", func() error { _, _, err := after.GetAndDelete(ctx); return err }},
		{"counter made before: get", func() error { _, err := counter.Get(ctx); return err }},
		{"counter made before: increment", func() error { _, err := counter.IncrementAndGet(ctx); return err }},
		{"counter made before: compare-and-set", func() error { _, err := counter.CompareAndSet(ctx, 5, 6); return err }},
		{"counter made after: set", func() error { return c.AtomicLong("n").Set(ctx, 9) }},
		{"counter made after: remaining TTL", func() error { _, err := c.AtomicLong("n").RemainTTL(ctx); return err }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.ErrorIs(t, tc.op(), redisson.ErrClosed)
		})
	}
	// Nothing changed, and the go-redis client is not closed.
	v, err := rdb.Get(ctx, "b").Result()
	require.NoError(t, err)
	require.Equal(t, "v", v)
	n, err := rdb.Get(ctx, "n").Result()
	require.NoError(t, err)
	require.Equal(t, "5", n)
}
