package integration

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/internal/slot"
	"github.com/goredisson/redisson/rlock"
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
	errc := make(chan error, 1)
	go func() {
		wh, err := b.Lock(name).Lock(ctx)
		if err != nil {
			errc <- err
			return
		}
		got <- time.Now()
		errc <- wh.Unlock(ctx)
	}()
	from, err := cl.MasterOf(ctx, s)
	require.NoError(t, err)
	fromRaw := redistest.Client(t, from)
	channel := rlock.ChannelName(name)
	redistest.Eventually(t, 10*time.Second, "the waiter subscribed", func() bool {
		n, err := fromRaw.Do(ctx, "PUBSUB", "SHARDNUMSUB", channel).Slice()
		return err == nil && len(n) == 2 && n[1] == int64(1)
	})
	var to *redistest.Server
	for _, m := range cl.Masters {
		if m != from {
			to = m
			break
		}
	}
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
	require.NoError(t, <-errc)
	wake := at.Sub(released)
	violations := 0
	if wake > 2*time.Second {
		violations++
	}
	record("Cluster slot migration during a wait", "RLock (sharded pub/sub)", violations,
		"the waiter resubscribed on the new owner and acquired %d ms after the release", wake.Milliseconds())
	require.Less(t, wake, 2*time.Second, "woken by its timer, not by the release")
}
