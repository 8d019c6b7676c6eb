package fencedlock_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/fencedlock"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/keys"
)

// TestCluster runs the fenced lock on a 3-master Redis 7 cluster: the token
// key lands in the lock's slot for plain and hash-tagged names (no
// CROSSSLOT), a waiter on another client is woken over sharded pub/sub, a
// same-client waiter is handed the lock with its token, and Delete removes
// both keys.
func TestCluster(t *testing.T) {
	cl := redistest.StartCluster(t, 3)
	ctx := context.Background()
	newCluster := func() *redisson.Client {
		c, err := redisson.New(cl.Client(t))
		require.NoError(t, err)
		t.Cleanup(func() { _ = c.Close() })
		return c
	}
	a, b := newCluster(), newCluster()
	require.True(t, a.Sharded())
	raw := cl.Client(t)
	for i, name := range []string{"orders", "tenant{7}:orders", "{x}y"} {
		t.Run(name, func(t *testing.T) {
			h1, err := a.FencedLock(name).Lock(ctx)
			require.NoError(t, err)
			require.Equal(t, int64(1), h1.Token())
			// Another client waits, a goroutine of the same client too.
			other := make(chan *fencedlock.Hold, 1)
			local := make(chan *fencedlock.Hold, 1)
			for _, w := range []struct {
				c  *redisson.Client
				ch chan *fencedlock.Hold
			}{{b, other}, {a, local}} {
				go func() {
					wctx, cancel := context.WithTimeout(ctx, 20*time.Second)
					defer cancel()
					h, err := w.c.FencedLock(name).Lock(wctx)
					if err != nil {
						t.Error(err)
					}
					w.ch <- h
				}()
			}
			redistest.Eventually(t, 5*time.Second, "both waiters subscribed", func() bool {
				return a.Stats().PubSub.Waiters == 1 && b.Stats().PubSub.Waiters == 1
			})
			require.NoError(t, h1.Unlock(ctx)) // hands over to the local waiter
			h2 := <-local
			require.NotNil(t, h2)
			require.Equal(t, int64(2), h2.Token())
			require.NoError(t, h2.Unlock(ctx)) // no local waiter: a real release
			h3 := <-other
			require.NotNil(t, h3)
			require.Equal(t, int64(3), h3.Token())
			tok, err := b.FencedLock(name).Token(ctx)
			require.NoError(t, err)
			require.Equal(t, int64(3), tok)
			require.NoError(t, h3.Unlock(ctx))
			deleted, err := a.FencedLock(name).Delete(ctx)
			require.NoError(t, err)
			require.True(t, deleted)
			require.Zero(t, raw.Exists(ctx, name).Val()+raw.Exists(ctx, keys.FencedLockToken(name)).Val(), fmt.Sprint("round ", i))
		})
	}
}
