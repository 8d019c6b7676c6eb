package integration

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/redissontest"
)

// TestRedisClientClosedDuringWait: the go-redis client under a waiting
// Client is closed while the waiter subscribes (or just after): the wait
// ends at once with an error, whatever the caller's context (it used to
// wait for a confirmation that could not come, fair lock's
// TestVanishedWaiterIsSkipped worked around it).
func TestRedisClientClosedDuringWait(t *testing.T) {
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			e := newEnv(t)
			ctx := context.Background()
			holder := redissontest.ClientAt(t, e.srv.Addr())
			require.NoError(t, k.setup(ctx, holder, "closed", 1))
			h, err := k.acquire(ctx, holder, "closed", 0, redisson.NewOwnerID())
			require.NoError(t, err)
			defer func() { _ = h.release(ctx) }()
			rdb := e.srv.NewClient()
			c, err := redisson.New(rdb)
			require.NoError(t, err)
			t.Cleanup(func() { _ = c.Close() })
			wk := k
			if k.waiter != "" {
				wk, _ = kindByName(k.waiter)
			}
			errc := make(chan error, 1)
			go func() {
				_, err := wk.acquire(ctx, c, "closed", 0, redisson.NewOwnerID())
				errc <- err
			}()
			redistest.Eventually(t, 10*time.Second, "the waiter registered", waiting(t, wk, e.raw, c))
			start := time.Now()
			require.NoError(t, rdb.Close())
			select {
			case err := <-errc:
				require.Error(t, err)
				record("go-redis client closed during a wait", k.name, 0, "the wait ended %d ms after the close with %q",
					time.Since(start).Milliseconds(), errText(err))
			case <-time.After(20 * time.Second):
				record("go-redis client closed during a wait", k.name, 1, "the wait did not end within 20 s of the close")
				t.Fatal("the wait did not end within 20 s of the close")
			}
		})
	}
}
