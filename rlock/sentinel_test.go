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
	"github.com/goredisson/redisson/rlock"
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
	require.Equal(t, map[string]string{a.ID() + ":" + strconv.FormatInt(h.Owner(), 10): "1"}, raw.HGetAll(ctx, "sentinel").Val())
	got := make(chan error, 1)
	go func() {
		wh, err := b.Lock("sentinel").Lock(ctx)
		if err == nil {
			err = wh.Unlock(ctx)
		}
		got <- err
	}()
	redistest.Eventually(t, 5*time.Second, "the waiter subscribed", func() bool { return b.Stats().PubSub.Waiters == 1 })
	require.NoError(t, h.Unlock(ctx))
	select {
	case err := <-got:
		require.NoError(t, err)
	case <-time.After(5 * time.Second):
		t.Fatal("the waiter was not woken")
	}
}

// TestSentinelFailover: without replica sync the lock scripts go down
// dedicated connections; after a Sentinel failover (which kills the old
// master's clients and demotes it) locks keep working on the new master
// within the time go-redis needs to follow Sentinel, and no hold is counted
// twice.
func TestSentinelFailover(t *testing.T) {
	master := redistest.StartServer(t)
	replica := redistest.StartReplica(t, master)
	sentinel := redistest.StartSentinel(t, master)
	ctx := context.Background()
	sc := redis.NewSentinelClient(&redis.Options{Addr: sentinel.Addr()})
	t.Cleanup(func() { _ = sc.Close() })
	redistest.Eventually(t, 15*time.Second, "the sentinel knows the replica", func() bool {
		rs, err := sc.Replicas(ctx, redistest.SentinelMasterName).Result()
		return err == nil && len(rs) == 1
	})

	rdb := redis.NewFailoverClient(&redis.FailoverOptions{
		MasterName:    redistest.SentinelMasterName,
		SentinelAddrs: []string{sentinel.Addr()},
	})
	t.Cleanup(func() { _ = rdb.Close() })
	c, err := redisson.New(rdb, redisson.WithReplicaSync(redisson.ReplicaSyncOptions{Disabled: true}))
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	lock := c.Lock("failover")
	cycle := func(id int64) error {
		h, err := lock.Lock(ctx, rlock.WithOwner(id))
		if err != nil {
			return err
		}
		return h.Unlock(ctx)
	}
	for i := range 20 {
		require.NoError(t, cycle(int64(i+1)))
	}

	// Sentinel promotes a replica only once it has fresh INFO from it.
	redistest.Eventually(t, 30*time.Second, "Sentinel accepted the failover", func() bool {
		return sc.Failover(ctx, redistest.SentinelMasterName).Err() == nil
	})
	newMaster := redistest.Client(t, replica)
	redistest.Eventually(t, 15*time.Second, "the replica became master", func() bool {
		role, err := newMaster.Do(ctx, "ROLE").Slice()
		return err == nil && len(role) > 0 && role[0] == "master"
	})

	// Until go-redis has heard of the switch from Sentinel, calls may still
	// reach the old master or fail; then they succeed, on the new master.
	var failures int
	redistest.Eventually(t, 15*time.Second, "locks are taken on the new master", func() bool {
		h, err := lock.Lock(ctx, rlock.WithOwner(100))
		if err != nil {
			failures++
			return false
		}
		onNew := newMaster.Exists(ctx, "failover").Val() == 1
		if err := h.Unlock(ctx); err != nil {
			failures++
			return false
		}
		return onNew
	})
	t.Logf("%d failed lock/unlock calls during the switch-over", failures)
	for i := range 20 {
		h, err := lock.Lock(ctx, rlock.WithOwner(int64(200+i)))
		require.NoError(t, err, "cycle %d after the failover", i)
		require.Equal(t, map[string]string{c.ID() + ":" + strconv.Itoa(200+i): "1"}, newMaster.HGetAll(ctx, "failover").Val())
		require.NoError(t, h.Unlock(ctx))
		require.Equal(t, int64(0), newMaster.Exists(ctx, "failover").Val())
	}
}
