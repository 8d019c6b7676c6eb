package redisson_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/multilock"
)

// TestWaitRefusedFailsAtOnce: with replica sync on and an ACL user without
// +wait, Redis refuses every lock write's WAIT. That is a refusal, not a
// replica that is slow: Lock, TryLock and a RedLock fail with an error
// matching ErrNoPermission (and ErrNoSyncedReplicas: nobody can tell that
// a replica has the write) instead of retrying until ctx ends, and the
// undone acquisitions leave nothing in Redis.
func TestWaitRefusedFailsAtOnce(t *testing.T) {
	master := redistest.StartServer(t)
	redistest.StartReplica(t, master)
	admin := redistest.Client(t, master)
	redistest.SetUser(t, admin, "app", "~*", "&*", "+@all", "-wait")
	c, err := redisson.New(redistest.UserClient(t, master, "app"))
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	_, err = c.Lock("w1").Lock(ctx)
	require.ErrorIs(t, err, redisson.ErrNoPermission)
	require.ErrorIs(t, err, redisson.ErrNoSyncedReplicas)
	require.Contains(t, err.Error(), "+wait")
	_, ok, err := c.Lock("w2").TryLock(ctx)
	require.False(t, ok)
	require.ErrorIs(t, err, redisson.ErrNoPermission)
	_, err = multilock.NewRedLock(c.Lock("r1"), c.Lock("r2"), c.Lock("r3")).Lock(ctx)
	require.ErrorIs(t, err, redisson.ErrNoPermission)
	require.NoError(t, ctx.Err(), "no wait ran out its ctx")
	// The undos leave their unlock latches, which expire by themselves.
	n, err := admin.Exists(context.Background(), "w1", "w2", "r1", "r2", "r3").Result()
	require.NoError(t, err)
	require.Zero(t, n, "every refused acquisition undone")
}
