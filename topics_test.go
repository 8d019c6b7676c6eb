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

// Topic subscriptions ride the connection the lock waiters use, and Stats
// counts them.
func TestTopicsShareTheHub(t *testing.T) {
	srv := redistest.StartServer(t)
	rdb := redistest.Client(t, srv)
	c, err := redisson.New(rdb)
	require.NoError(t, err)
	defer c.Close()
	other, err := redisson.New(redistest.Client(t, srv))
	require.NoError(t, err)
	defer other.Close()
	ctx := t.Context()

	h, err := other.Lock("l").Lock(ctx)
	require.NoError(t, err)
	waited := make(chan error, 1)
	go func() {
		wh, err := c.Lock("l").Lock(ctx)
		if err == nil {
			err = wh.Unlock(context.Background())
		}
		waited <- err
	}()
	s1, err := redisson.NewTopic[string](c, "news", codec.String()).Subscribe(ctx)
	require.NoError(t, err)
	defer s1.Close()
	s2, err := redisson.NewPatternTopic[string](c, "news.*", codec.String()).Subscribe(ctx)
	require.NoError(t, err)
	defer s2.Close()
	redistest.Eventually(t, 10*time.Second, "the lock waiter subscribed", func() bool { return c.Stats().PubSub.Waiters == 1 })

	st := c.Stats().PubSub
	require.Equal(t, redisson.PubSubStats{Connections: 1, Channels: 3, Waiters: 1, Topics: 2}, st)
	require.NoError(t, h.Unlock(ctx))
	require.NoError(t, <-waited)

	// A sharded topic takes a shard connection of its own (a plain hub on
	// a single node).
	s3, err := redisson.NewShardedTopic[string](c, "orders", codec.String()).Subscribe(ctx)
	require.NoError(t, err)
	defer s3.Close()
	st = c.Stats().PubSub
	require.Equal(t, 2, st.Connections)
	require.Equal(t, 3, st.Topics)
}
