package integration

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/internal/slot"
	"github.com/goredisson/redisson/keys"
)

// TestClusterSlotMigrationDuringWait: a waiter subscribed with SSUBSCRIBE
// on the master of its lock's slot; the slot moves to another master, so
// Redis drops the subscription (a server-sent sunsubscribe). The waiter's
// hub subscribes again on the new owner, so the holder's release (published
// there) wakes it at once, not after its timer.
func TestClusterSlotMigrationDuringWait(t *testing.T) {
	cl := redistest.StartCluster(t, 3)
	ctx := context.Background()
	newCC := func() *redisson.Client {
		c, err := redisson.New(cl.Client(t))
		require.NoError(t, err)
		t.Cleanup(func() { _ = c.Close() })
		require.True(t, c.Sharded(), "Redis 7 cluster: sharded pub/sub")
		return c
	}
	a, b := newCC(), newCC()
	name := "migrating"
	s := slot.Of(name)
	h, err := a.Lock(name).Lock(ctx)
	require.NoError(t, err)
	got := make(chan time.Time, 1)
	// errc carries the wait's failure, unlocked the unlock's result: one
	// channel for both let a select see the unlock's nil before the time.
	errc := make(chan error, 1)
	unlocked := make(chan error, 1)
	go func() {
		wh, err := b.Lock(name).Lock(ctx)
		if err != nil {
			errc <- err
			return
		}
		got <- time.Now()
		unlocked <- wh.Unlock(ctx)
	}()
	from, err := cl.MasterOf(ctx, s)
	require.NoError(t, err)
	fromRaw := redistest.Client(t, from)
	channel := keys.LockChannel(name)
	redistest.Eventually(t, 10*time.Second, "the waiter subscribed", func() bool {
		n, err := fromRaw.Do(ctx, "PUBSUB", "SHARDNUMSUB", channel).Slice()
		return err == nil && len(n) == 2 && n[1] == int64(1)
	})
	to := otherMaster(cl, from)
	require.NoError(t, cl.MoveSlot(ctx, s, from, to))
	toRaw := redistest.Client(t, to)
	redistest.Eventually(t, 10*time.Second, "the waiter subscribed on the new owner", func() bool {
		n, err := toRaw.Do(ctx, "PUBSUB", "SHARDNUMSUB", channel).Slice()
		return err == nil && len(n) == 2 && n[1] == int64(1)
	})
	released := time.Now()
	require.NoError(t, h.Unlock(ctx))
	var at time.Time
	select {
	case at = <-got:
	case err := <-errc:
		t.Fatalf("the waiter failed: %v", err)
	case <-time.After(20 * time.Second):
		t.Fatal("the waiter was not woken within 20 s of the release")
	}
	require.NoError(t, <-unlocked)
	wake := at.Sub(released)
	violations := 0
	if wake > 2*time.Second {
		violations++
	}
	record("Cluster slot migration during a wait", "RLock (sharded pub/sub)", violations,
		"the waiter resubscribed on the new owner and acquired %d ms after the release", wake.Milliseconds())
	require.Less(t, wake, 2*time.Second, "woken by its timer, not by the release")
}

// TestClusterMasterFailover: the master of a lock's slot is killed (SIGKILL)
// while a client holds the lock (acquired with replica sync: its replica
// acknowledged it) and another waits on a sharded subscription to that
// master. The replica takes over; the lock is still held there, the holder
// releases it normally, and the waiter, whose per-node pub/sub connection
// died with the master, is subscribed on the new master and woken by the
// release. A try of the waiter that meets the dead master before the
// promotion (woken by its subscription's reroute) is retried after a
// back-off (Options.Retry), so the wait lives through the failover.
func TestClusterMasterFailover(t *testing.T) {
	cl := redistest.StartClusterWithReplicas(t, 3)
	ctx := context.Background()
	newCC := func() *redisson.Client {
		c, err := redisson.New(cl.Client(t))
		require.NoError(t, err)
		t.Cleanup(func() { _ = c.Close() })
		return c
	}
	a, b := newCC(), newCC()
	name := "failover"
	s := slot.Of(name)
	h, err := a.Lock(name).Lock(ctx)
	require.NoError(t, err)
	got := make(chan time.Time, 1)
	// errc carries the wait's failure, unlocked the unlock's result: one
	// channel for both let a select see the unlock's nil before the time.
	errc := make(chan error, 1)
	unlocked := make(chan error, 1)
	go func() {
		wh, err := b.Lock(name).Lock(ctx)
		if err != nil {
			errc <- err
			return
		}
		got <- time.Now()
		unlocked <- wh.Unlock(ctx)
	}()
	master, err := cl.MasterOf(ctx, s)
	require.NoError(t, err)
	replica := cl.ReplicaOf(master)
	channel := keys.LockChannel(name)
	masterRaw := redistest.Client(t, master)
	redistest.Eventually(t, 10*time.Second, "the waiter subscribed", func() bool {
		n, err := masterRaw.Do(ctx, "PUBSUB", "SHARDNUMSUB", channel).Slice()
		return err == nil && len(n) == 2 && n[1] == int64(1)
	})
	killed := time.Now()
	require.NoError(t, master.Kill())
	redistest.Eventually(t, 60*time.Second, "the replica took over", func() bool { return redistest.IsMaster(ctx, replica) })
	promoted := time.Since(killed)
	replicaRaw := redistest.Client(t, replica)
	require.Equal(t, int64(1), replicaRaw.Exists(ctx, name).Val(), "the acknowledged lock survived the failover")
	redistest.Eventually(t, 30*time.Second, "the waiter subscribed on the new master", func() bool {
		select {
		case err := <-errc:
			t.Fatalf("the waiter's wait ended during the failover: %v", err)
		default:
		}
		n, err := replicaRaw.Do(ctx, "PUBSUB", "SHARDNUMSUB", channel).Slice()
		return err == nil && len(n) == 2 && n[1] == int64(1)
	})
	resubscribed := time.Since(killed)
	select {
	case <-h.Done():
		t.Fatalf("the holder was told it lost the lock: %v", h.Err())
	default:
	}
	// An unlock sent before the holder's go-redis client has learned of
	// the new master goes to the dead one and fails; the engine then
	// spends the hold and lets the lock expire with its lease (Redisson
	// cancels renewal whatever the unlock's outcome). Let the client
	// follow first, as any of its commands hitting MOVED would.
	acc := a.Redis().(*redis.ClusterClient)
	redistest.Eventually(t, 30*time.Second, "the holder's client follows the failover", func() bool {
		acc.ReloadState(ctx)
		node, err := acc.MasterForKey(ctx, name)
		return err == nil && node.Options().Addr == replica.Addr()
	})
	followed := time.Since(killed)
	released := time.Now()
	require.NoError(t, h.Unlock(ctx))
	var at time.Time
	select {
	case at = <-got:
	case err := <-errc:
		t.Fatalf("the waiter failed: %v", err)
	case <-time.After(30 * time.Second):
		t.Fatal("the waiter was not woken within 30 s of the release")
	}
	require.NoError(t, <-unlocked)
	wake := at.Sub(released)
	violations := 0
	if wake > 2*time.Second {
		violations++
	}
	record("Cluster master failover (kill -9)", "RLock (sharded pub/sub, replica sync on)", violations,
		"replica promoted %.1f s after the kill; the lock survived and its hold lived on; the waiter resubscribed on the new master %.1f s after the kill; the holder's client followed %.1f s after it and unlocked; the waiter acquired %d ms after the release",
		promoted.Seconds(), resubscribed.Seconds(), followed.Seconds(), wake.Milliseconds())
	require.Less(t, wake, 2*time.Second, "woken by its timer, not by the release")
}

// otherMaster returns a master of cl other than m.
func otherMaster(cl *redistest.Cluster, m *redistest.Server) *redistest.Server {
	for _, o := range cl.Masters {
		if o != m {
			return o
		}
	}
	return nil
}

// TestClusterMovedDuringReplicaSync: with replicas, lock scripts go to the
// key's master with WAIT in one pipeline, through that node's client. The
// lock's slot moves to another master (with its own replica) and the
// client's slot map still names the old one: the pipeline gets MOVED, and
// the script goes through the cluster client instead, which follows the
// redirect and reloads its slot map. No call fails and the answers are
// right: another owner's try finds the lock held, the holder unlocks.
func TestClusterMovedDuringReplicaSync(t *testing.T) {
	cl := redistest.StartClusterWithReplicas(t, 3)
	ctx := context.Background()
	rdb := cl.Client(t)
	a, err := redisson.New(rdb)
	require.NoError(t, err)
	t.Cleanup(func() { _ = a.Close() })
	name := "moved"
	s := slot.Of(name)
	h, err := a.Lock(name).Lock(ctx)
	require.NoError(t, err)
	// Another client's tries (a's own would not be sent while a holds the
	// lock: its waiters wait for its hand-off); its first loads its slot
	// map and the script.
	rdbB := cl.Client(t)
	b, err := redisson.New(rdbB)
	require.NoError(t, err)
	t.Cleanup(func() { _ = b.Close() })
	_, ok, err := b.Lock(name).TryLock(ctx)
	require.NoError(t, err)
	require.False(t, ok)
	from, err := cl.MasterOf(ctx, s)
	require.NoError(t, err)
	to := otherMaster(cl, from)
	require.NoError(t, cl.MoveSlot(ctx, s, from, to))
	for _, cc := range []*redis.ClusterClient{rdb, rdbB} {
		stale, err := cc.MasterForKey(ctx, name)
		require.NoError(t, err)
		require.Equal(t, from.Addr(), stale.Options().Addr, "the client's slot map still names the old master")
	}
	fromRaw, toRaw := redistest.Client(t, from), redistest.Client(t, to)
	movedBefore := redistest.MovedReplies(t, fromRaw)

	_, ok, err = b.Lock(name).TryLock(ctx)
	require.NoError(t, err, "a try through a stale slot map")
	require.False(t, ok, "the lock is held (on its new master)")
	moved := redistest.MovedReplies(t, fromRaw) - movedBefore
	require.Positive(t, moved, "the try went to the old master first and got MOVED")
	require.NoError(t, h.Unlock(ctx), "the holder unlocks")
	require.Zero(t, toRaw.Exists(ctx, name).Val(), "released on the new master")
	redistest.Eventually(t, 10*time.Second, "the client follows the move", func() bool {
		node, err := rdbB.MasterForKey(ctx, name)
		return err == nil && node.Options().Addr == to.Addr()
	})
	h, err = b.Lock(name).Lock(ctx)
	require.NoError(t, err)
	require.NoError(t, h.Unlock(ctx))
	record("Cluster slot migration with replicas (MOVED during replica sync)", "RLock (replica sync on)", 0,
		"the client's slot map still named the old master: its synced pipeline went there and got MOVED (%d MOVED replies), went through the cluster client, which followed the redirect and reloaded its map; another owner's try found the lock held, the holder unlocked on the new master, no call failed", moved)
}
