package multilock_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/multilock"
)

// A RedLock server that does not answer costs its share of the wait, not
// the client's timeout: the undo of the acquire whose reply never came runs
// in the background.
func TestRedLockSilentServerCostsItsShare(t *testing.T) {
	rc := newRedCluster(t, 3)
	ctx := context.Background()
	require.NoError(t, rc.raws[0].Do(ctx, "client", "pause", 3000, "all").Err())
	rl := rc.redLock(rc.clients, "res")
	const wait = 600 * time.Millisecond
	start := time.Now()
	h, ok, err := rl.TryLock(ctx, multilock.WithWait(wait))
	took := time.Since(start)
	t.Logf("TryLock(WithWait(%v)) with one of 3 servers paused: ok=%v after %v", wait, ok, took)
	require.NoError(t, err)
	require.True(t, ok, "2 of 3 servers answer")
	require.NoError(t, h.Unlock(ctx))
	// Waiting for the silent server would take until its pause ends or the
	// client's Timeout runs out, both 3 s from the try; its share of the
	// 600 ms wait ends far sooner, and the rest is a loaded machine's
	// scheduling.
	require.Equal(t, redisson.DefaultTimeout, rc.clients[0].Options().Timeout)
	require.Less(t, took, redisson.DefaultTimeout, "the silent server held the RedLock back")
}
