package fencedlock_test

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

// TestMultiLockMember: a fenced lock is a multi-lock member like an RLock.
// Each acquisition through the multi-lock issues a token; a multi-lock
// lease sets the hash's TTL but never the token key's (Redisson's fenced
// expire would put that TTL on the token counter too, and tokens would
// start over at 1 once it ran out). A set naming the lock as both fenced
// lock and RLock is a set naming one lock twice.
func TestMultiLockMember(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	c := redissontest.ClientAt(t, srv.Addr())
	ctx := context.Background()
	fenced := c.FencedLock("m:fenced")
	m := multilock.New(fenced, c.Lock("m:plain"))
	for want := int64(1); want <= 2; want++ {
		h, ok, err := m.TryLock(ctx, multilock.WithWait(time.Second), multilock.WithLease(10*time.Second))
		require.NoError(t, err)
		require.True(t, ok)
		tok, err := fenced.Token(ctx)
		require.NoError(t, err)
		require.Equal(t, want, tok)
		pttl := raw.PTTL(ctx, "m:fenced").Val()
		require.True(t, pttl > 9*time.Second && pttl <= 10*time.Second, "the multi-lock's lease: %v", pttl)
		require.Equal(t, time.Duration(-1), raw.PTTL(ctx, "redisson_lock_token:{m:fenced}").Val(), "the token key keeps no TTL")
		held, err := fenced.IsLocked(ctx)
		require.NoError(t, err)
		require.True(t, held)
		require.NoError(t, h.Unlock(ctx))
	}
	require.Zero(t, raw.Exists(ctx, "m:fenced", "m:plain").Val())

	_, err := multilock.New(fenced, c.Lock("m:fenced")).Lock(ctx)
	require.Error(t, err)
	require.ErrorIs(t, err, redisson.ErrInvalidArgument)
}
