package rlock_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/redissontest"
)

// TestRoundTrips: an uncontended lock+unlock sends exactly two commands,
// the acquire and the unlock script (the unlock latch costs no third).
func TestRoundTrips(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	c := redissontest.ClientAt(t, srv.Addr())
	ctx := context.Background()
	lock := c.Lock("rt")
	// Warm-up: the first use of a script answers NOSCRIPT once, and the
	// first lock write reads the master's replica count.
	h, err := lock.Lock(ctx)
	require.NoError(t, err)
	require.NoError(t, h.Unlock(ctx))

	m, err := redistest.StartMonitor(srv.Addr())
	require.NoError(t, err)
	defer m.Close()
	require.NoError(t, raw.Echo(ctx, "begin").Err())
	const pairs = 10
	for i := 0; i < pairs; i++ {
		h, err := lock.Lock(ctx)
		require.NoError(t, err)
		require.NoError(t, h.Unlock(ctx))
	}
	require.NoError(t, raw.Echo(ctx, "end").Err())
	cmds := redistest.CommandsBetween(t, m, "begin", "end")
	require.Len(t, cmds, 2*pairs, "commands: %v", cmds)
	for _, c := range cmds {
		require.Equal(t, "evalsha", c.Command)
	}
}
