package rlock_test

import (
	"context"
	"fmt"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/keys"
	"github.com/goredisson/redisson/redissontest"
	"github.com/goredisson/redisson/rlock"
)

// TestCluster runs the lock on a 3-master Redis 7 cluster: PublishAuto picks
// sharded pub/sub like Redisson, waiters are woken over SSUBSCRIBE, and the
// watchdog renews locks of many slots in per-slot batches.
func TestCluster(t *testing.T) {
	cl := redistest.StartCluster(t, 3)
	ctx := context.Background()
	// Short, so that the renewals below come in a few seconds, but not so
	// short that a round delayed by a loaded machine (two -race suites on a
	// 3-master cluster sharing 2 cores) reaches the loss margin: with 400 ms
	// a lease was now and then declared lost that way.
	const watchdog = time.Second
	newCluster := func() *redisson.Client {
		c, err := redisson.New(cl.Client(t), redisson.WithWatchdogTimeout(watchdog))
		require.NoError(t, err)
		t.Cleanup(func() { _ = c.Close() })
		return c
	}
	a, b := newCluster(), newCluster()
	require.True(t, a.Sharded(), "Redis 7 cluster: SPUBLISH, as Redisson 3.29+ AUTO")
	raw := cl.Client(t)

	// A raw SSUBSCRIBE sees the unlock message on the lock's shard.
	node, err := raw.MasterForKey(ctx, keys.LockChannel("orders"))
	require.NoError(t, err)
	ss := node.SSubscribe(ctx, keys.LockChannel("orders"))
	defer ss.Close()
	_, err = ss.Receive(ctx)
	require.NoError(t, err)

	h, err := a.Lock("orders").Lock(ctx)
	require.NoError(t, err)
	got := make(chan error, 1)
	go func() {
		wh, err := b.Lock("orders").Lock(ctx)
		if err == nil {
			err = wh.Unlock(ctx)
		}
		got <- err
	}()
	redistest.Eventually(t, 5*time.Second, "the waiter subscribed", func() bool { return b.Stats().PubSub.Waiters == 1 })
	require.NoError(t, h.Unlock(ctx))
	msg, err := ss.ReceiveTimeout(ctx, 5*time.Second)
	require.NoError(t, err)
	require.Equal(t, &redis.Message{Channel: "redisson_lock__channel:{orders}", Payload: "0"}, msg)
	select {
	case err := <-got:
		require.NoError(t, err)
	case <-time.After(3 * time.Second):
		t.Fatal("the waiter was not woken over SSUBSCRIBE")
	}

	// Many locks across all slots stay held through several renewals.
	const n = 60
	holds := make([]*rlock.Hold, n)
	slots := map[int]bool{}
	for i := range holds {
		name := "held-" + strconv.Itoa(i)
		holds[i], err = a.Lock(name).Lock(ctx)
		require.NoError(t, err)
		slots[int(raw.ClusterKeySlot(ctx, name).Val())] = true
	}
	require.Greater(t, len(slots), 10)
	start := time.Now()
	for time.Since(start) < 3*watchdog {
		time.Sleep(watchdog / 4)
		for i := range holds {
			require.NoError(t, holds[i].Err(), "lock %d lost", i)
		}
	}
	for i := range holds {
		require.Equal(t, int64(1), raw.Exists(ctx, "held-"+strconv.Itoa(i)).Val())
		require.NoError(t, holds[i].Unlock(ctx))
	}
	st := a.Stats().Renewal
	require.Greater(t, st.Scripts, st.Rounds, "one round carries one script per slot")
	require.Zero(t, st.Lost)
}

// TestReplicaSync: with a replica the lock writes are followed by WAIT; when
// the replica cannot acknowledge, the acquire is undone and fails with
// ErrNoSyncedReplicas, unless unsynced writes are allowed.
func TestReplicaSync(t *testing.T) {
	master := redistest.StartServer(t)
	replica := redistest.StartReplica(t, master)
	raw := redistest.Client(t, master)
	rraw := redistest.Client(t, replica)
	ctx := context.Background()
	c := redissontest.ClientAt(t, master.Addr())

	waits := func() int {
		info := redistest.ParseInfo(raw.Info(ctx, "commandstats").Val())
		var calls int
		_, _ = fmt.Sscanf(info["cmdstat_wait"], "calls=%d", &calls)
		return calls
	}
	// The first use of each script on a node answers NOSCRIPT and is sent
	// again after SCRIPT LOAD, WAIT included; count from the second use on.
	h, err := c.Lock("warmup").Lock(ctx)
	require.NoError(t, err)
	require.NoError(t, h.Unlock(ctx))
	before := waits()
	h, err = c.Lock("synced").Lock(ctx)
	require.NoError(t, err)
	require.NoError(t, h.Unlock(ctx))
	require.Equal(t, before+2, waits(), "one WAIT after the acquire and one after the unlock")

	pid, err := strconv.Atoi(redistest.ParseInfo(rraw.Info(ctx, "server").Val())["process_id"])
	require.NoError(t, err)
	require.NoError(t, syscall.Kill(pid, syscall.SIGSTOP))
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGCONT) })

	_, err = c.Lock("unsynced").Lock(ctx)
	require.ErrorIs(t, err, redisson.ErrNoSyncedReplicas)
	require.Equal(t, int64(0), raw.Exists(ctx, "unsynced").Val(), "the failed acquire was undone")

	lax := redissontest.ClientAt(t, master.Addr(), redisson.WithReplicaSync(redisson.ReplicaSyncOptions{AllowUnsynced: true}))
	h, err = lax.Lock("unsynced").Lock(ctx)
	require.NoError(t, err)
	require.NoError(t, h.Unlock(ctx))

	off := redissontest.ClientAt(t, master.Addr(), redisson.WithReplicaSync(redisson.ReplicaSyncOptions{Disabled: true}))
	before = waits()
	h, err = off.Lock("nowait").Lock(ctx)
	require.NoError(t, err)
	require.NoError(t, h.Unlock(ctx))
	require.Equal(t, before, waits())
}
