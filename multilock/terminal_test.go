package multilock_test

import (
	"context"
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/multilock"
	"github.com/goredisson/redisson/redissontest"
)

// A member whose client is closed can never be taken: Lock stops at once
// with ErrClosed instead of taking and giving back the other members until
// ctx ends.
func TestLockStopsOnClosedMember(t *testing.T) {
	srv := redistest.StartServer(t)
	c1, c2 := redissontest.ClientAt(t, srv.Addr()), redissontest.ClientAt(t, srv.Addr())
	require.NoError(t, c2.Close())
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err := multilock.New(c1.Lock("a"), c2.Lock("b")).Lock(ctx)
	require.ErrorIs(t, err, redisson.ErrClosed)
	require.NoError(t, ctx.Err(), "Lock returned before its context ended")
	require.Zero(t, redistest.Client(t, srv).Exists(ctx, "a").Val(), "a was given back")
}

// A RedLock still gets its quorum with one member's client closed.
func TestRedLockToleratesOneClosedMember(t *testing.T) {
	rc := newRedCluster(t, 3)
	require.NoError(t, rc.clients[2].Close())
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	h, err := rc.redLock(rc.clients, "res").Lock(ctx)
	require.NoError(t, err)
	require.Len(t, h.Held(), 2)
	require.NoError(t, h.Unlock(ctx))
}

// When ctx ends, Lock's error says why the members could not be taken: a
// member whose server is down (a failure that may pass, so Lock keeps
// trying until ctx ends).
func TestLockDeadlineKeepsLastFailure(t *testing.T) {
	servers := redistest.StartMasters(t, 2)
	c0 := redissontest.ClientAt(t, servers[0].Addr())
	// One dial per try: go-redis' own dial retries would outlast ctx.
	c1, err := redisson.New(redistest.Client(t, servers[1], func(o *redis.Options) { o.DialerRetries = 1 }))
	require.NoError(t, err)
	t.Cleanup(func() { _ = c1.Close() })
	require.NoError(t, servers[1].Kill())
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_, err = multilock.New(c0.Lock("a"), c1.Lock("b")).Lock(ctx)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.ErrorIs(t, err, syscall.ECONNREFUSED)
}

// A RedLock whose members were lost below the quorum does not report a
// clean Unlock, even when the losses have not reached the hold yet.
func TestRedLockUnlockAfterQuorumLost(t *testing.T) {
	servers := redistest.StartMasters(t, 3)
	ctx := context.Background()
	for i := range 10 {
		var cs []*redisson.Client
		for _, s := range servers {
			cs = append(cs, redissontest.ClientAt(t, s.Addr()))
		}
		rl := multilock.NewRedLock(rlocksOf(cs, fmt.Sprintf("res%d", i))...)
		h, err := rl.Lock(ctx)
		require.NoError(t, err)
		require.NoError(t, cs[1].Close())
		require.NoError(t, cs[2].Close())
		err = h.Unlock(ctx)
		require.Error(t, err, "round %d", i)
		require.NoError(t, cs[0].Close())
	}
}

// The same when the go-redis client under a member's Client was closed.
func TestLockStopsOnClosedRedisClient(t *testing.T) {
	srv := redistest.StartServer(t)
	c1 := redissontest.ClientAt(t, srv.Addr())
	rdb := srv.NewClient()
	c2, err := redisson.New(rdb)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c2.Close() })
	require.NoError(t, rdb.Close())
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err = multilock.New(c1.Lock("a"), c2.Lock("b")).Lock(ctx)
	require.ErrorIs(t, err, redis.ErrClosed)
	require.NoError(t, ctx.Err(), "Lock returned before its context ended")
}
