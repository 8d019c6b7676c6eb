package multilock_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

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
	// The client's timeout is 3s; the wait 600ms.
	require.Less(t, took, wait+900*time.Millisecond, "the silent server held the RedLock back")
}
