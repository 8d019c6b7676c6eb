package fairlock_test

import (
	"context"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/redissontest"
)

// TestShortDeadlines: 64 goroutines in two clients call Lock with ctx
// deadlines of 0–3 ms, as request-scoped code does under load. Each waiter
// must count in the queue for no longer than its ctx allows it to wait (the
// time left, as Redisson's tryLock(waitTime) does), so that waiters which
// gave up cannot hold those behind them back; and every waiter's entry must
// be gone once it has returned.
func TestShortDeadlines(t *testing.T) {
	if testing.Short() {
		t.Skip("a load scenario of several seconds")
	}
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	clients := []*redisson.Client{redissontest.ClientAt(t, srv.Addr()), redissontest.ClientAt(t, srv.Addr())}
	const (
		name    = "short"
		workers = 64
		windows = 3
		window  = 1500 * time.Millisecond
	)
	var (
		acquired [windows]atomic.Int64
		wg       sync.WaitGroup
	)
	start := time.Now()
	for i := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			lock := clients[i%2].FairLock(name)
			for {
				w := int(time.Since(start) / window)
				if w >= windows {
					return
				}
				d := time.Duration(rand.IntN(3001)) * time.Microsecond
				ctx, cancel := context.WithTimeout(context.Background(), d)
				h, err := lock.Lock(ctx)
				cancel()
				if err != nil {
					continue
				}
				acquired[w].Add(1)
				require.NoError(t, h.Unlock(context.Background()))
			}
		}()
	}
	wg.Wait()
	for w := range windows {
		t.Logf("window %d: %d acquisitions", w+1, acquired[w].Load())
	}
	for w := range windows {
		require.NotZero(t, acquired[w].Load(), "no acquisition in window %d of %v", w+1, window)
	}
	ctx := context.Background()
	redistest.Eventually(t, 2*time.Second, "the queue is empty once every waiter has returned", func() bool {
		n, err := raw.LLen(ctx, "redisson_lock_queue:{"+name+"}").Result()
		require.NoError(t, err)
		m, err := raw.ZCard(ctx, "redisson_lock_timeout:{"+name+"}").Result()
		require.NoError(t, err)
		if n+m > 0 {
			t.Logf("queue %d, timeouts %d", n, m)
		}
		return n == 0 && m == 0
	})
}
