package redisson_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/codec"
	"github.com/goredisson/redisson/internal/redistest"
)

// TestQueueConstructors: every constructor hands out a handle on the
// client's Redis, named as given, failing with ErrClosed after Close.
func TestQueueConstructors(t *testing.T) {
	srv := redistest.StartServer(t)
	c, err := redisson.New(redistest.Client(t, srv))
	require.NoError(t, err)
	ctx := context.Background()
	q := redisson.NewQueue[string](c, "q", codec.String())
	d := redisson.NewDeque[string](c, "d", codec.String())
	bq := redisson.NewBlockingQueue[string](c, "bq", codec.String())
	bd := redisson.NewBlockingDeque[string](c, "bd", codec.String())
	dq := redisson.NewDelayedQueue[string](c, "dq", codec.String())
	defer dq.Destroy()
	require.Equal(t, "q", q.Name())
	require.Equal(t, "dq", dq.Destination().Name())
	require.NoError(t, q.Offer(ctx, "1"))
	require.NoError(t, d.AddFirst(ctx, "2"))
	require.NoError(t, bq.Put(ctx, "3"))
	require.NoError(t, bd.PutFirst(ctx, "4"))
	require.NoError(t, dq.Offer(ctx, "5", 0))
	v, err := dq.Destination().Take(ctx)
	require.NoError(t, err)
	require.Equal(t, "5", v)
	require.NoError(t, c.Close())
	require.ErrorIs(t, q.Offer(ctx, "x"), redisson.ErrClosed)
	_, err = bd.TakeLast(ctx)
	require.ErrorIs(t, err, redisson.ErrClosed)
}
