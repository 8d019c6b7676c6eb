package integration

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/codec"
	"github.com/goredisson/redisson/internal/redistest"
)

// TestQueueTakeRidesOutFailover: a Take waiting on a Sentinel-managed
// master when the master dies waits on, through the client's retry policy,
// on the promoted replica, and gets the element pushed there; a delayed
// queue's transfer task resubscribes and moves an element offered after the
// failover.
func TestQueueTakeRidesOutFailover(t *testing.T) {
	s := startSentinelSetup(t)
	c := s.client(t, redisson.WithRetry(redisson.RetryOptions{Attempts: 100, Delay: 200 * time.Millisecond}))
	q := redisson.NewBlockingQueue[string](c, "fq", codec.String())
	dq := redisson.NewDelayedQueue[string](c, "fdq", codec.String())
	defer dq.Destroy()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	got := make(chan string, 1)
	go func() {
		v, err := q.Take(ctx)
		if err != nil {
			v = "error: " + err.Error()
		}
		got <- v
	}()
	master := redistest.Client(t, s.master)
	redistest.Eventually(t, 10*time.Second, "the Take waits on the master", func() bool { return blocked(master) == 1 })
	took := s.killMasterAndFailOver(t)
	t.Logf("failover took %v", took)
	producer := s.client(t)
	require.NoError(t, redisson.NewBlockingQueue[string](producer, "fq", codec.String()).Put(ctx, "after-failover"))
	select {
	case v := <-got:
		require.Equal(t, "after-failover", v)
	case <-ctx.Done():
		t.Fatal("the Take did not return")
	}
	require.NoError(t, dq.Offer(ctx, "delayed", 100*time.Millisecond))
	v, err := dq.Destination().Take(ctx)
	require.NoError(t, err)
	require.Equal(t, "delayed", v)
}
