package rlock_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/redistest"
)

// TestSentinel uses the lock through a go-redis failover client: Sentinel
// finds the master, lock writes wait for its replica, waiters are woken.
func TestSentinel(t *testing.T) {
	master := redistest.StartServer(t)
	redistest.StartReplica(t, master)
	sentinel := redistest.StartSentinel(t, master)
	newFailover := func() *redisson.Client {
		rdb := redis.NewFailoverClient(&redis.FailoverOptions{
			MasterName:    redistest.SentinelMasterName,
			SentinelAddrs: []string{sentinel.Addr()},
		})
		t.Cleanup(func() { _ = rdb.Close() })
		c, err := redisson.New(rdb)
		require.NoError(t, err)
		t.Cleanup(func() { _ = c.Close() })
		return c
	}
	a, b := newFailover(), newFailover()
	ctx := context.Background()
	raw := redistest.Client(t, master)

	h, err := a.Lock("sentinel").Lock(ctx)
	require.NoError(t, err)
	require.Equal(t, map[string]string{a.ID() + ":" + ownerOf(t, h): "1"}, raw.HGetAll(ctx, "sentinel").Val())
	got := make(chan error, 1)
	go func() {
		wh, err := b.Lock("sentinel").Lock(ctx)
		if err == nil {
			err = b.Lock("sentinel").Unlock(wh)
		}
		got <- err
	}()
	eventually(t, 5*time.Second, "the waiter subscribed", func() bool { return b.Stats().PubSub.Waiters == 1 })
	require.NoError(t, a.Lock("sentinel").Unlock(h))
	select {
	case err := <-got:
		require.NoError(t, err)
	case <-time.After(5 * time.Second):
		t.Fatal("the waiter was not woken")
	}
}

func ownerOf(t *testing.T, ctx context.Context) string {
	t.Helper()
	id, ok := redisson.OwnerFromContext(ctx)
	require.True(t, ok)
	return strconv.FormatInt(id, 10)
}
