package semaphore_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/internal/vectors"
	"github.com/goredisson/redisson/redissontest"
	"github.com/goredisson/redisson/semaphore"
)

type actor = vectors.Actor[*redisson.Client, struct{}]

type call = vectors.Call[*redisson.Client, struct{}]

// permitsArg is a step's "permits" argument.
func permitsArg(st vectors.Step) (int, error) {
	n, ok := st.Int("permits")
	if !ok {
		return 0, fmt.Errorf("step %d: %s needs permits", st.Step, st.Op)
	}
	return int(n), nil
}

// semaphoreActions is what the records' RSemaphore ops mean in Go.
// Permits have no owner, so actors only choose the client.
var semaphoreActions = vectors.Actions[*redisson.Client, struct{}]{
	NewClient: func(t testing.TB, srv *redistest.Server, sc vectors.Scenario) (*redisson.Client, string) {
		c := redissontest.ClientAt(t, srv.Addr(), redisson.WithWatchdogTimeout(sc.WatchdogTimeout()))
		return c, c.ID()
	},
	Calls: map[string]call{
		"trySetPermits": func(ctx context.Context, a *actor, st vectors.Step) (any, error) {
			n, err := permitsArg(st)
			if err != nil {
				return nil, err
			}
			var opts []semaphore.SetOption
			if d, ok := st.Arg("ttl_ms"); ok {
				opts = append(opts, semaphore.WithTTL(d))
			}
			return a.Client.Semaphore(st.Object).TrySetPermits(ctx, n, opts...)
		},
		"acquire": func(ctx context.Context, a *actor, st vectors.Step) (any, error) {
			n, err := permitsArg(st)
			if err != nil {
				return nil, err
			}
			return nil, a.Client.Semaphore(st.Object).Acquire(ctx, n)
		},
		"tryAcquire": func(ctx context.Context, a *actor, st vectors.Step) (any, error) {
			n, err := permitsArg(st)
			if err != nil {
				return nil, err
			}
			var opts []semaphore.Option
			if d, ok := st.Arg("wait_ms"); ok {
				opts = append(opts, semaphore.WithWait(d))
			}
			return a.Client.Semaphore(st.Object).TryAcquire(ctx, n, opts...)
		},
		"release": func(ctx context.Context, a *actor, st vectors.Step) (any, error) {
			n, err := permitsArg(st)
			if err != nil {
				return nil, err
			}
			return nil, a.Client.Semaphore(st.Object).Release(ctx, n)
		},
		"addPermits": func(ctx context.Context, a *actor, st vectors.Step) (any, error) {
			n, err := permitsArg(st)
			if err != nil {
				return nil, err
			}
			return nil, a.Client.Semaphore(st.Object).AddPermits(ctx, n)
		},
		"availablePermits": func(ctx context.Context, a *actor, st vectors.Step) (any, error) {
			return a.Client.Semaphore(st.Object).AvailablePermits(ctx)
		},
		"drainPermits": func(ctx context.Context, a *actor, st vectors.Step) (any, error) {
			return a.Client.Semaphore(st.Object).DrainPermits(ctx)
		},
	},
	ErrorClass: func(err error) string {
		if errors.Is(err, redisson.ErrInvalidArgument) {
			return "java.lang.IllegalArgumentException"
		}
		return fmt.Sprintf("unmapped Go error: %v", err)
	},
}

// TestJavaVectors replays every RSemaphore scenario recorded with Java
// Redisson 3.52.0 with Go actors and compares outcome, messages and the
// whole Redis state after each step with the record.
func TestJavaVectors(t *testing.T) {
	f, err := vectors.Load("semaphore.json")
	require.NoError(t, err)
	require.Equal(t, "3.52.0", f.RedissonVersion)
	require.Len(t, f.Scenarios, 4)
	srv := redistest.StartServer(t)
	for _, sc := range f.Scenarios {
		t.Run(sc.Name, func(t *testing.T) { vectors.Replay(t, srv, sc, semaphoreActions) })
	}
}
