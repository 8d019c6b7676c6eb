package fairlock_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/fairlock"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/redissontest"
)

// TestNonReentrantFairLock: the holder's second Lock and TryLock fail at
// once with ErrNonReentrant and leave no queue entry; another client's
// waiter queues, and takes the lock in its turn after the release.
func TestNonReentrantFairLock(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	c1, c2 := redissontest.ClientAt(t, srv.Addr()), redissontest.ClientAt(t, srv.Addr())
	ctx := context.Background()
	lock := c1.NonReentrantFairLock("nrf")
	h, err := lock.Lock(ctx, fairlock.WithOwner(1))
	require.NoError(t, err)

	_, err = lock.Lock(ctx, fairlock.WithOwner(1))
	require.ErrorIs(t, err, redisson.ErrNonReentrant)
	for _, opts := range [][]fairlock.Option{{fairlock.WithOwner(1)}, {fairlock.WithOwner(1), fairlock.WithWait(time.Second)}} {
		_, _, err := lock.TryLock(ctx, opts...)
		require.ErrorIs(t, err, redisson.ErrNonReentrant)
	}
	require.Equal(t, map[string]string{c1.ID() + ":1": "1"}, raw.HGetAll(ctx, "nrf").Val())
	require.Equal(t, int64(0), raw.Exists(ctx, "redisson_lock_queue:{nrf}", "redisson_lock_timeout:{nrf}").Val())

	got := make(chan error, 1)
	go func() {
		h2, err := c2.NonReentrantFairLock("nrf").Lock(ctx)
		if err == nil {
			err = h2.Unlock(ctx)
		}
		got <- err
	}()
	redistest.Eventually(t, 10*time.Second, "the waiter queued", func() bool {
		return raw.LLen(ctx, "redisson_lock_queue:{nrf}").Val() == 1
	})
	require.NoError(t, h.Unlock(ctx))
	select {
	case err := <-got:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("the waiter did not take the lock")
	}
}
