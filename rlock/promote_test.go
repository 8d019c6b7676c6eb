package rlock_test

import (
	"context"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/redissontest"
	"github.com/goredisson/redisson/rlock"
)

// TestPromotedReplica: a client pointed at a replica gets READONLY from
// its lock scripts (go-redis then marks the connection bad); once the
// replica is promoted (REPLICAOF NO ONE), the next TryLock succeeds. The
// connections that answered READONLY are not used again: kept, each failed
// every call with "Conn is in a bad state: READONLY" until it went back to
// the pool. Both ways a script reaches Redis: a call without a deadline,
// and one bound by a deadline nearer than go-redis' ReadTimeout.
func TestPromotedReplica(t *testing.T) {
	for _, tc := range []struct {
		name    string
		timeout time.Duration // 0: no deadline
	}{
		{"no deadline", 0},
		{"short deadline", time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			master := redistest.StartServer(t)
			replica := redistest.StartReplica(t, master)
			c := redissontest.ClientAt(t, replica.Addr(), redisson.WithReplicaSync(redisson.ReplicaSyncOptions{Disabled: true}))
			admin := redistest.Client(t, replica)
			lock := c.Lock("promoted")
			try := func() (*rlock.Hold, error) {
				ctx := context.Background()
				if tc.timeout > 0 {
					var cancel context.CancelFunc
					ctx, cancel = context.WithTimeout(ctx, tc.timeout)
					defer cancel()
				}
				h, ok, err := lock.TryLock(ctx)
				if err == nil && !ok {
					t.Fatal("the lock is free, yet TryLock did not take it")
				}
				return h, err
			}
			// Several calls, so that connections that answered READONLY
			// are there to be used again.
			for range 5 {
				_, err := try()
				require.ErrorContains(t, err, "READONLY")
			}
			require.NoError(t, admin.Do(context.Background(), "REPLICAOF", "NO", "ONE").Err())

			failures := 0
			var last error
			deadline := time.Now().Add(15 * time.Second)
			for failures <= 2 && time.Now().Before(deadline) {
				h, err := try()
				if err == nil {
					require.NoError(t, h.Unlock(context.Background()))
					return
				}
				failures++
				last = err
			}
			t.Fatalf("after the promotion, TryLock failed %d times in a row; last: %v", failures, last)
		})
	}
}

// TestReleaseAfterReadOnly: a lock is held on a master that a failover
// demotes and then promotes again. An Unlock sent while it is a replica is
// refused (READONLY) without running; sent again, it runs on a connection
// other than the one that answered READONLY, and the lock is gone: the
// promotion comes after the first refusal (the library sends the script
// again through the pool at once) or after the second (the release tries
// again).
func TestReleaseAfterReadOnly(t *testing.T) {
	for _, promoteAfter := range []int32{1, 2} {
		t.Run("promoted after refusal "+strconv.Itoa(int(promoteAfter)), func(t *testing.T) {
			releaseAfterReadOnly(t, promoteAfter)
		})
	}
}

func releaseAfterReadOnly(t *testing.T, promoteAfter int32) {
	master := redistest.StartServer(t)
	replica := redistest.StartReplica(t, master)
	ctx := context.Background()
	rawMaster, rawReplica := redistest.Client(t, master), redistest.Client(t, replica)
	rdb := redistest.Client(t, master)
	promote := &promoteOnReadOnly{admin: rawMaster}
	rdb.AddHook(promote) // before the Client takes connections: they copy the hooks
	c, err := redisson.New(rdb, redisson.WithReplicaSync(redisson.ReplicaSyncOptions{Disabled: true}))
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })

	for i := range 5 {
		h, err := c.Lock("warm").Lock(ctx)
		require.NoError(t, err, "cycle %d", i)
		require.NoError(t, h.Unlock(ctx))
	}
	h, ok, err := c.Lock("demoted").TryLock(ctx, rlock.WithLease(time.Minute))
	require.NoError(t, err)
	require.True(t, ok)
	redistest.Eventually(t, 10*time.Second, "the replica has the lock", func() bool {
		return rawReplica.Exists(ctx, "demoted").Val() == 1
	})

	// The failover: the replica takes over, the old master follows it.
	require.NoError(t, rawReplica.Do(ctx, "REPLICAOF", "NO", "ONE").Err())
	require.NoError(t, rawMaster.Do(ctx, "REPLICAOF", "127.0.0.1", strconv.Itoa(replica.Port())).Err())
	redistest.Eventually(t, 15*time.Second, "the old master follows the new one", func() bool {
		info := redistest.ParseInfo(rawMaster.Info(ctx, "replication").Val())
		return info["master_link_status"] == "up" && rawMaster.Exists(ctx, "demoted").Val() == 1
	})

	promote.after.Store(promoteAfter)
	require.NoError(t, h.Unlock(ctx))
	require.True(t, promote.fired.Load(), "the unlock met READONLY")
	require.Equal(t, int64(0), rawMaster.Exists(ctx, "demoted").Val(), "the lock is gone")
}

// promoteOnReadOnly has its server stop replicating (REPLICAOF NO ONE)
// when the after-th command since it was set gets READONLY, before that
// reply is returned.
type promoteOnReadOnly struct {
	admin *redis.Client
	after atomic.Int32 // 0: never
	fired atomic.Bool
}

func (p *promoteOnReadOnly) DialHook(next redis.DialHook) redis.DialHook { return next }
func (p *promoteOnReadOnly) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

func (p *promoteOnReadOnly) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		err := next(ctx, cmd)
		if err != nil && redis.HasErrorPrefix(err, "READONLY") && p.after.Load() > 0 && p.after.Add(-1) == 0 {
			if perr := p.admin.Do(context.WithoutCancel(ctx), "REPLICAOF", "NO", "ONE").Err(); perr == nil {
				p.fired.Store(true)
			}
		}
		return err
	}
}
