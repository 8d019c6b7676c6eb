package multilock_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/multilock"
	"github.com/goredisson/redisson/redissontest"
)

// A multi-lock of an owner that holds a member already (watchdog) re-enters
// it with a fixed lease: the owner's holds of the member share one lease,
// which turns fixed (a deviation from Redisson, whose outer renewal goes
// on). The outer hold is then told when that lease ends, before the key
// expires: never a hold that believes it holds a lock Redis freed.
func TestNestedFixedLeaseEndsOuterHoldSignalled(t *testing.T) {
	srv := redistest.StartServer(t)
	c := redissontest.ClientAt(t, srv.Addr())
	ctx := context.Background()
	outer, err := c.Lock("a").Lock(ctx)
	require.NoError(t, err)
	m := multilock.New(c.Lock("a"), c.Lock("b"))
	h, ok, err := m.TryLock(ctx, multilock.WithOwner(outer.Owner()), multilock.WithWait(time.Second), multilock.WithLease(500*time.Millisecond))
	require.NoError(t, err)
	require.True(t, ok)
	require.NoError(t, h.Unlock(ctx))
	select {
	case <-outer.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the outer hold was not told its lease ended")
	}
	// The owner's last acquisition chose a fixed lease, which ran out.
	require.ErrorIs(t, outer.Err(), redisson.ErrLeaseExpired)
}
