package rlock_test

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/redistest"
)

// TestLateTryIsUndone: a try whose reply never comes is undone, and its
// undo, on another connection, can reach Redis first; the try then takes
// the lock for nobody when it lands. The try here is held back on its way
// (600 ms) past go-redis' ReadTimeout (200 ms), and the undo goes out
// first: the lock is taken after the undo, and a look the client's Timeout
// later finds it and undoes it again, long before its 30 s lease. The
// caller gives up on its own (no deadline: the read times out), at a
// deadline near enough that the try runs on a helper goroutine (20 ms),
// and at one far enough that it runs on the caller's (150 ms).
func TestLateTryIsUndone(t *testing.T) {
	for _, tc := range []struct {
		name     string
		deadline time.Duration
	}{
		{"read timeout", 0},
		{"helper goroutine", 20 * time.Millisecond},
		{"caller's goroutine", 150 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := redistest.StartServer(t)
			raw := redistest.Client(t, srv)
			ctx := context.Background()
			lag := redistest.NewLag(600 * time.Millisecond)
			rdb := redistest.Client(t, srv, func(o *redis.Options) {
				o.ReadTimeout = 200 * time.Millisecond
				o.MaxRetries = -1
			})
			rdb.AddHook(lag)
			c, err := redisson.New(rdb, redisson.WithTimeout(2*time.Second))
			require.NoError(t, err)
			t.Cleanup(func() { _ = c.Close() })
			l := c.Lock("late")
			// Load the scripts: a NOSCRIPT answer would be sent again with EVAL.
			h, err := l.Lock(ctx)
			require.NoError(t, err)
			require.NoError(t, h.Unlock(ctx))

			lag.Arm(c.ID() + ":")
			tctx, cancel := ctx, context.CancelFunc(func() {})
			if tc.deadline > 0 {
				tctx, cancel = context.WithTimeout(ctx, tc.deadline)
			}
			_, _, err = l.TryLock(tctx)
			cancel()
			require.Error(t, err, "the try's reply is held back past ReadTimeout")
			select {
			case <-lag.Landed():
			case <-time.After(5 * time.Second):
				t.Fatal("the held-back try was never written")
			}
			redistest.Eventually(t, 10*time.Second, "the late look undoes it", func() bool {
				n, err := raw.Exists(ctx, "late").Result()
				require.NoError(t, err)
				return n == 0
			})
			h, ok, err := c.Lock("late").TryLock(ctx)
			require.NoError(t, err)
			require.True(t, ok)
			require.NoError(t, h.Unlock(ctx))
		})
	}
}
