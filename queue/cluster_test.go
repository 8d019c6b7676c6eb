package queue_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/codec"
	"github.com/goredisson/redisson/internal/redistest"
)

// TestCluster: on a Redis Cluster, blocking calls wait on a connection to
// the master of their key, and the delayed queue's keys, scripts and
// channel work across the masters (the keys share the name's slot; PUBLISH
// reaches every node).
func TestCluster(t *testing.T) {
	cl := redistest.StartCluster(t, 3)
	rdb := cl.NewClient()
	t.Cleanup(func() { _ = rdb.Close() })
	c, err := redisson.New(rdb)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	ctx, cancel := context.WithTimeout(t.Context(), within)
	defer cancel()

	for i := range 6 { // names on different masters
		name := fmt.Sprintf("cq-%d", i)
		q := redisson.NewBlockingDeque[string](c, name, codec.String())
		got := make(chan string, 1)
		go func() {
			v, err := q.TakeLast(ctx)
			if err != nil {
				v = err.Error()
			}
			got <- v
		}()
		require.NoError(t, q.Put(ctx, "a"))
		require.Equal(t, "a", recv(t, got))
		_, ok, err := q.PollFirst(ctx, 20*time.Millisecond)
		require.NoError(t, err)
		require.False(t, ok)

		dq := redisson.NewDelayedQueue[string](c, name, codec.String())
		require.NoError(t, dq.Offer(ctx, "later", 50*time.Millisecond))
		v, err := dq.Destination().Take(ctx)
		require.NoError(t, err)
		require.Equal(t, "later", v)
		dq.Destroy()
	}
}
