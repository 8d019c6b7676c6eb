package rlock_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/faultproxy"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/locks"
	"github.com/goredisson/redisson/observe"
	"github.com/goredisson/redisson/redissontest"
)

// nonReentrant is what the two non-reentrant kinds share here.
type nonReentrant interface {
	Lock(ctx context.Context, opts ...locks.Option) (*locks.Hold, error)
	TryLock(ctx context.Context, opts ...locks.Option) (*locks.Hold, bool, error)
}

// TestNonReentrantLostReplyOneHandle: an owner's acquisition of a
// non-reentrant lock whose try got no reply (Redis stalled behind a proxy)
// is resolved once Redis answers, and a second acquisition of the same
// owner meanwhile is refused by the client itself: it fails with
// ErrNonReentrant although no reply could come, so nothing was sent that a
// recovery could later mistake for, or merge with, the first one's hold.
// The owner ends with one hold and one handle.
func TestNonReentrantLostReplyOneHandle(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	for _, kind := range []string{"non-reentrant lock", "non-reentrant fair lock"} {
		t.Run(kind, func(t *testing.T) {
			ctx := context.Background()
			name := fmt.Sprintf("nr:lost:%d", len(kind))
			p, err := faultproxy.New(srv.Addr())
			require.NoError(t, err)
			t.Cleanup(func() { _ = p.Close() })
			rdb := redis.NewClient(&redis.Options{Addr: p.Addr(), ReadTimeout: 250 * time.Millisecond,
				MaintNotificationsConfig: redistest.MaintOff()})
			t.Cleanup(func() { _ = rdb.Close() })
			var mu sync.Mutex
			var failed []error
			obs := &observe.Observer{AcquireTry: func(_ context.Context, e observe.AcquireTry) {
				if e.Name == name && e.Err != nil {
					mu.Lock()
					failed = append(failed, e.Err)
					mu.Unlock()
				}
			}}
			c := redissontest.NewClient(t, rdb, redisson.WithObserver(obs),
				redisson.WithRetry(redisson.RetryOptions{Attempts: 1000, Delay: 50 * time.Millisecond}))
			l := map[string]nonReentrant{
				"non-reentrant lock":      c.NonReentrantLock(name),
				"non-reentrant fair lock": c.NonReentrantFairLock(name),
			}[kind]
			const owner = 7
			require.NoError(t, rdb.Ping(ctx).Err())

			p.Stall()
			type result struct {
				h   *locks.Hold
				err error
			}
			first := make(chan result, 1)
			go func() {
				wctx, cancel := context.WithTimeout(ctx, time.Minute)
				defer cancel()
				h, err := l.Lock(wctx, locks.WithOwner(owner))
				first <- result{h, err}
			}()
			require.Eventually(t, func() bool {
				mu.Lock()
				defer mu.Unlock()
				return len(failed) > 0
			}, 30*time.Second, 5*time.Millisecond, "the first try gets no reply")

			// Redis is stalled: only the client itself can answer these.
			_, _, err = l.TryLock(ctx, locks.WithOwner(owner))
			require.ErrorIs(t, err, redisson.ErrNonReentrant)
			wctx, cancel := context.WithTimeout(ctx, time.Minute)
			_, err = l.Lock(wctx, locks.WithOwner(owner))
			cancel()
			require.ErrorIs(t, err, redisson.ErrNonReentrant)
			p.Resume()
			r := <-first
			require.NoError(t, r.err)

			require.Equal(t, map[string]string{c.ID() + ":7": "1"}, raw.HGetAll(ctx, name).Val(), "one hold in Redis")
			_, _, err = l.TryLock(ctx, locks.WithOwner(owner))
			require.ErrorIs(t, err, redisson.ErrNonReentrant, "the holder is refused")
			_, ok, err := l.TryLock(ctx)
			require.NoError(t, err)
			require.False(t, ok, "another owner finds it held")
			require.NoError(t, r.h.Unlock(ctx))
			require.Zero(t, raw.Exists(ctx, name).Val(), "its one unlock frees it")
			h, err := l.Lock(ctx, locks.WithOwner(owner))
			require.NoError(t, err, "released, the owner takes it again")
			require.NoError(t, h.Unlock(ctx))
		})
	}
}
