package rlock_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/faultproxy"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/lockable"
	"github.com/goredisson/redisson/redissontest"
)

// A multi-lock member's Expire waits for a replica, as the acquire does:
// a PEXPIRE the replica never got would be undone by a failover, leaving
// the provisional lease in Redis while the hold believes the final one.
func TestMemberExpireIsSynced(t *testing.T) {
	master := redistest.StartServer(t)
	link, err := faultproxy.New(master.Addr())
	require.NoError(t, err)
	t.Cleanup(func() { _ = link.Close() })
	redistest.StartReplicaVia(t, master, link.Addr())
	c := redissontest.ClientAt(t, master.Addr())
	ctx := context.Background()
	h, ok, err := c.Lock("m").TryAcquire(ctx, lockable.Request{Owner: 7, Wait: time.Second, Lease: 2 * time.Second})
	require.NoError(t, err)
	require.True(t, ok)
	defer h.Unlock(ctx)
	require.NoError(t, h.Expire(ctx, 5*time.Second), "in sync")

	link.Stall()
	defer link.Resume()
	require.ErrorIs(t, h.Expire(ctx, 3*time.Second), redisson.ErrNoSyncedReplicas)
}
