package multilock_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/keys"
	"github.com/goredisson/redisson/multilock"
	"github.com/goredisson/redisson/redissontest"
)

// TestExtendMultiLockAcrossClients: a MultiLock's Extend sets the lease of
// every member, on each member's own server, and the hold follows it.
func TestExtendMultiLockAcrossClients(t *testing.T) {
	srvs := redistest.StartMasters(t, 2)
	c1, c2 := redissontest.ClientAt(t, srvs[0].Addr()), redissontest.ClientAt(t, srvs[1].Addr())
	raw1, raw2 := redistest.Client(t, srvs[0]), redistest.Client(t, srvs[1])
	ctx := context.Background()
	m := multilock.New(c1.Lock("x"), c2.Lock("y"), c2.Lock("z"))
	h, err := m.Lock(ctx) // watchdog
	require.NoError(t, err)
	defer h.Unlock(ctx)
	require.NoError(t, h.Extend(ctx, time.Minute))
	for key, d := range map[string]time.Duration{
		"x": raw1.PTTL(ctx, "x").Val(), "y": raw2.PTTL(ctx, "y").Val(), "z": raw2.PTTL(ctx, "z").Val(),
	} {
		require.True(t, d > 50*time.Second && d <= time.Minute, "%s: PTTL %v", key, d)
	}
	require.NoError(t, h.Err())
}

// TestExtendGroupOverlappingHolds: while the owner holds an overlapping
// value set of the group through another hold, a shorter Extend does not
// lower the expiry of the values they share (nor of the others): the
// other hold counts on them. The extended hold's own signal follows the
// shorter lease; the other hold lives on.
func TestExtendGroupOverlappingHolds(t *testing.T) {
	srv := redistest.StartServer(t)
	c := redissontest.ClientAt(t, srv.Addr())
	raw := redistest.Client(t, srv)
	ctx := context.Background()
	a, err := c.MultiLockGroup("g", "a", "b").Lock(ctx, multilock.WithLease(time.Minute))
	require.NoError(t, err)
	defer a.Unlock(ctx)
	b, err := c.MultiLockGroup("g", "b", "c").Lock(ctx, multilock.WithOwner(a.Owner()), multilock.WithLease(time.Minute))
	require.NoError(t, err)
	defer b.Unlock(ctx)
	owner := c.ID() + ":" + strconv.FormatInt(a.Owner(), 10)
	expiry := func(v string) time.Duration {
		at, err := raw.HGet(ctx, "g", keys.GroupMultiLockField([]byte(v))+":"+owner+":expire_time").Int64()
		require.NoError(t, err)
		return time.Until(time.UnixMilli(at))
	}

	require.NoError(t, a.Extend(ctx, time.Second))
	require.Greater(t, expiry("b"), 50*time.Second, "the shared value keeps the other hold's expiry")
	require.Greater(t, expiry("a"), 50*time.Second, "raised only")
	select {
	case <-a.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the extended hold outlived its shorter lease")
	}
	require.ErrorIs(t, a.Err(), redisson.ErrLeaseExpired)
	require.NoError(t, b.Err(), "the other hold lives on")
	require.Greater(t, expiry("b"), 50*time.Second)

	// Alone, a hold's Extend sets its values' expiry, shorter included.
	require.NoError(t, b.Extend(ctx, 5*time.Second))
	for _, v := range []string{"b", "c"} {
		d := expiry(v)
		require.True(t, d > 0 && d <= 5*time.Second, "%s: expiry in %v", v, d)
	}
	require.Greater(t, raw.PTTL(ctx, "g").Val(), 50*time.Second, "the group's TTL is not lowered")
}
