package rlock_test

import (
	"context"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/redissontest"
	"github.com/goredisson/redisson/rlock"
)

// TestKilledConnections: lock scripts use dedicated connections that skip
// go-redis' per-command probe. When the server closes them (CLIENT KILL, as
// Sentinel does on a failover, or a restart) between two calls, the calls
// still succeed, with the state a single call leaves.
func TestKilledConnections(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	c := redissontest.ClientAt(t, srv.Addr())
	ctx := context.Background()
	lock := c.Lock("killed")
	field := func(id int64) string { return c.ID() + ":" + itoa(id) }
	kill := func() {
		t.Helper()
		// SKIPME yes (the default) spares raw's own connection.
		require.NoError(t, raw.Do(ctx, "CLIENT", "KILL", "TYPE", "normal").Err())
	}

	for i := range 5 {
		kill() // between an unlock and the next lock
		h, err := lock.Lock(ctx, rlock.WithOwner(int64(100+i)))
		require.NoError(t, err, "lock after kill, round %d", i)
		require.Equal(t, map[string]string{field(int64(100 + i)): "1"}, raw.HGetAll(ctx, "killed").Val())

		kill() // between a lock and its unlock
		require.NoError(t, h.Unlock(ctx), "unlock after kill, round %d", i)
		require.Equal(t, int64(0), raw.Exists(ctx, "killed").Val())
		require.ErrorIs(t, h.Err(), context.Canceled, "an unlock ends the hold without a loss")
	}

	// A reentrant acquire over a killed connection is resolved too: Redis
	// counts one hold more than the client knows of exactly when it ran.
	owner := rlock.WithOwner(200)
	h1, err := lock.Lock(ctx, owner)
	require.NoError(t, err)
	holds := []*rlock.Hold{h1}
	for depth := 2; depth <= 4; depth++ {
		kill()
		h, err := lock.Lock(ctx, owner)
		require.NoError(t, err, "re-entry %d after kill", depth)
		holds = append(holds, h)
		require.Equal(t, map[string]string{field(200): itoa(int64(depth))}, raw.HGetAll(ctx, "killed").Val())
	}
	kill()
	for depth := 3; depth >= 0; depth-- {
		require.NoError(t, holds[depth].Unlock(ctx))
		if depth > 0 {
			require.Equal(t, map[string]string{field(200): itoa(int64(depth))}, raw.HGetAll(ctx, "killed").Val())
		}
	}
	require.Equal(t, int64(0), raw.Exists(ctx, "killed").Val())
}

// TestDedicatedConnectionsReturnToPool: the dedicated connections are few
// (at most a quarter of the pool) and go back to the application's pool when
// the Client closes.
func TestDedicatedConnectionsReturnToPool(t *testing.T) {
	srv := redistest.StartServer(t)
	rdb := srv.NewClient(func(o *redis.Options) { o.PoolSize = 8 })
	t.Cleanup(func() { rdb.Close() })
	c, err := redisson.New(rdb)
	require.NoError(t, err)
	ctx := context.Background()

	var wg sync.WaitGroup
	for g := range 16 {
		wg.Go(func() {
			lock := c.Lock("spread:" + itoa(int64(g)))
			for range 50 {
				h, err := lock.Lock(ctx)
				if !assertNoError(t, err) {
					return
				}
				assertNoError(t, h.Unlock(ctx))
			}
		})
	}
	wg.Wait()
	require.LessOrEqual(t, int(rdb.PoolStats().TotalConns), 8, "the pool's size bounds everything")
	require.NoError(t, c.Close())
	st := rdb.PoolStats()
	require.Equal(t, st.TotalConns, st.IdleConns, "every connection is back in the pool: %+v", st)
	require.NoError(t, rdb.Ping(ctx).Err(), "the application's client still works")
}

func assertNoError(t *testing.T, err error) bool {
	t.Helper()
	if err != nil {
		t.Error(err)
		return false
	}
	return true
}

func itoa(n int64) string {
	return strconv.FormatInt(n, 10)
}

// TestDeadlineOnSilentRedis: Lock and Unlock under a deadline nearer than
// go-redis' ReadTimeout run on the caller's goroutine, their scripts bound
// by the deadline at the socket. While Redis answers nobody (CLIENT PAUSE),
// a Lock whose try is on the wire ends at its deadline instead of waiting
// for the reply, and once Redis answers again the try it may have left is
// undone: the lock is free for the next Lock, held once.
func TestDeadlineOnSilentRedis(t *testing.T) {
	srv := redistest.StartServer(t)
	rdb := srv.NewClient(func(o *redis.Options) { o.ReadTimeout = time.Minute })
	t.Cleanup(func() { rdb.Close() })
	c, err := redisson.New(rdb)
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	raw := redistest.Client(t, srv)
	ctx := context.Background()
	lock := c.Lock("silent")

	// Warm: the replica count is known and a dedicated connection claimed.
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	h, err := lock.Lock(wctx)
	require.NoError(t, err)
	require.NoError(t, h.Unlock(wctx))
	cancel()

	require.NoError(t, raw.Do(ctx, "CLIENT", "PAUSE", 3000, "ALL").Err())
	lctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	_, err = lock.Lock(lctx)
	// Had it waited for the pause to end, it would hold the lock.
	require.ErrorIs(t, err, context.DeadlineExceeded)

	redistest.Eventually(t, 20*time.Second, "the lost try undone", func() bool {
		return raw.Exists(ctx, "silent").Val() == 0
	})
	h, err = lock.Lock(ctx)
	require.NoError(t, err)
	require.Equal(t, map[string]string{c.ID() + ":" + strconv.FormatInt(h.Owner(), 10): "1"}, raw.HGetAll(ctx, "silent").Val())
	require.NoError(t, h.Unlock(ctx))
}
