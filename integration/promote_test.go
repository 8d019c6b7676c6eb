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

// TestReplicaPromotion (issue 33): a client pointed at a replica gets its
// acquires refused (READONLY) for every kind; once the replica is promoted
// (REPLICAOF NO ONE), at most two more acquires fail, and the hold then
// taken is released. The connections that answered READONLY are not used
// again: kept, each failed every call with "Conn is in a bad state" until
// it went back to the pool, 4 s later. Waits do not retry here, so that
// each failed try is seen.
func TestReplicaPromotion(t *testing.T) {
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) { promotionCase(t, k) })
	}
}

func promotionCase(t *testing.T, k kind) {
	ctx := context.Background()
	master := redistest.StartServer(t)
	replica := redistest.StartReplica(t, master)
	const name = "promoted"
	// Permits are set on the master; the replica has them once WAIT says so.
	require.NoError(t, k.setup(ctx, redissontest.ClientAt(t, master.Addr()), name, 1))
	require.Equal(t, int64(1), redistest.Client(t, master).Do(ctx, "WAIT", 1, 5000).Val())

	c := redissontest.ClientAt(t, replica.Addr(), redisson.WithRetry(redisson.RetryOptions{Disabled: true}))
	acquire := func(within time.Duration) (hold, error) {
		ctx, cancel := context.WithTimeout(ctx, within)
		defer cancel()
		return k.acquire(ctx, c, name, time.Minute, 1)
	}
	for i := range 3 {
		// A multi-lock tries the whole set again until its time is up.
		_, err := acquire(time.Second)
		require.ErrorContains(t, err, "READONLY", "try %d on the replica", i)
	}
	require.NoError(t, redistest.Client(t, replica).Do(ctx, "REPLICAOF", "NO", "ONE").Err())

	failures := 0
	var last error
	for deadline := time.Now().Add(15 * time.Second); failures <= 2 && time.Now().Before(deadline); {
		h, err := acquire(5 * time.Second)
		if err == nil {
			require.NoError(t, h.release(ctx), "release on the promoted replica")
			return
		}
		failures++
		last = err
	}
	t.Fatalf("after the promotion, %d acquires failed in a row; last: %v", failures, last)
}
