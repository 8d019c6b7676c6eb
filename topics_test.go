package redisson_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
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

// A reliable topic subscription blocks in XREADGROUP on a connection of its
// own: a go-redis pool of one connection stays free for every other call,
// and the pub/sub hub is not used.
func TestReliableTopicUsesOwnConnection(t *testing.T) {
	srv := redistest.StartServer(t)
	rdb := redistest.Client(t, srv, func(o *redis.Options) { o.PoolSize = 1 })
	c, err := redisson.New(rdb)
	require.NoError(t, err)
	defer c.Close()
	ctx := t.Context()

	topic := redisson.NewReliableTopic[string](c, "rt", codec.String())
	sub, err := topic.Subscribe(ctx)
	require.NoError(t, err)
	defer sub.Close()
	redistest.Eventually(t, 10*time.Second, "XREADGROUP blocked", func() bool {
		return strings.Contains(rdb.ClientList(ctx).Val(), "cmd=xreadgroup")
	})
	h, err := c.Lock("l").Lock(ctx) // the pool's only connection is free
	require.NoError(t, err)
	require.NoError(t, h.Unlock(ctx))
	require.Equal(t, 0, c.Stats().PubSub.Topics)
	n, err := topic.Publish(ctx, "m")
	require.NoError(t, err)
	require.Equal(t, int64(1), n)
	select {
	case m := <-sub.Messages():
		require.Equal(t, "m", m.Value)
	case <-time.After(10 * time.Second):
		t.Fatal("no message")
	}
}
