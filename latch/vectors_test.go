package latch_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/internal/vectors"
	"github.com/goredisson/redisson/latch"
	"github.com/goredisson/redisson/redissontest"
)

type actor = vectors.Actor[*redisson.Client, struct{}]

type call = vectors.Call[*redisson.Client, struct{}]

// latchActions is what the records' RCountDownLatch ops mean in Go. A latch
// has no owner, so actors only choose the client.
var latchActions = vectors.Actions[*redisson.Client, struct{}]{
	NewClient: func(t testing.TB, srv *redistest.Server, sc vectors.Scenario) (*redisson.Client, string) {
		c := redissontest.ClientAt(t, srv.Addr(), redisson.WithWatchdogTimeout(sc.WatchdogTimeout()))
		return c, c.ID()
	},
	Calls: map[string]call{
		"trySetCount": func(ctx context.Context, a *actor, st vectors.Step) (any, error) {
			n, ok := st.Int("count")
			if !ok {
				return nil, fmt.Errorf("step %d: trySetCount needs count", st.Step)
			}
			return a.Client.CountDownLatch(st.Object).TrySetCount(ctx, n)
		},
		"countDown": func(ctx context.Context, a *actor, st vectors.Step) (any, error) {
			return nil, a.Client.CountDownLatch(st.Object).CountDown(ctx)
		},
		"getCount": func(ctx context.Context, a *actor, st vectors.Step) (any, error) {
			return a.Client.CountDownLatch(st.Object).Count(ctx)
		},
		"await": func(ctx context.Context, a *actor, st vectors.Step) (any, error) {
			d, timed := st.Arg("wait_ms")
			if !timed {
				// Java's await() is void: record no result.
				_, err := a.Client.CountDownLatch(st.Object).Await(ctx)
				return nil, err
			}
			return a.Client.CountDownLatch(st.Object).Await(ctx, latch.WithTimeout(d))
		},
		"delete": func(ctx context.Context, a *actor, st vectors.Step) (any, error) {
			return a.Client.CountDownLatch(st.Object).Delete(ctx)
		},
	},
	ErrorClass: func(err error) string {
		if errors.Is(err, redisson.ErrInvalidArgument) {
			return "java.lang.IllegalArgumentException"
		}
		return fmt.Sprintf("unmapped Go error: %v", err)
	},
}

// TestJavaVectors replays every RCountDownLatch scenario recorded with Java
// Redisson 3.52.0 with Go actors and compares outcome, messages and the
// whole Redis state after each step with the record.
func TestJavaVectors(t *testing.T) {
	f, err := vectors.Load("countdownlatch.json")
	require.NoError(t, err)
	require.Equal(t, "3.52.0", f.RedissonVersion)
	require.Len(t, f.Scenarios, 3)
	srv := redistest.StartServer(t)
	for _, sc := range f.Scenarios {
		t.Run(sc.Name, func(t *testing.T) { vectors.Replay(t, srv, sc, latchActions) })
	}
}
