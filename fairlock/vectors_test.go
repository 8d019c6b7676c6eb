package fairlock_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/fairlock"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/internal/vectors"
	"github.com/goredisson/redisson/redissontest"
)

type actor = vectors.Actor[*redisson.Client, *fairlock.Hold]

// fairActions is what the records' RFairLock ops mean in Go. Each actor has
// a fixed owner id passed WithOwner, so its acquisitions re-enter as a Java
// thread's do and its queue entry and channel carry the recorded field.
var fairActions = vectors.Actions[*redisson.Client, *fairlock.Hold]{
	NewClient: func(t testing.TB, srv *redistest.Server, sc vectors.Scenario) (*redisson.Client, string) {
		c := redissontest.ClientAt(t, srv.Addr(), redisson.WithWatchdogTimeout(sc.WatchdogTimeout()))
		return c, c.ID()
	},
	Calls: map[string]vectors.Call[*redisson.Client, *fairlock.Hold]{
		"lock": func(ctx context.Context, a *actor, st vectors.Step) (any, error) {
			if _, ok := st.Arg("wait_ms"); ok {
				return nil, fmt.Errorf("lock takes no wait_ms")
			}
			h, err := a.Client.FairLock(st.Object).Lock(ctx, options(a, st)...)
			if err != nil {
				return nil, err
			}
			a.Push(st.Object, h)
			return nil, nil
		},
		"tryLock": func(ctx context.Context, a *actor, st vectors.Step) (any, error) {
			opts := options(a, st)
			if d, ok := st.Arg("wait_ms"); ok {
				opts = append(opts, fairlock.WithWait(d))
			}
			h, ok, err := a.Client.FairLock(st.Object).TryLock(ctx, opts...)
			if err != nil {
				return nil, err
			}
			if ok {
				a.Push(st.Object, h)
			}
			return ok, nil
		},
		"unlock": func(ctx context.Context, a *actor, st vectors.Step) (any, error) {
			h, ok := a.Pop(st.Object)
			if !ok {
				return nil, fmt.Errorf("%w: %s holds no hold of %q", redisson.ErrNotOwner, a.Name, st.Object)
			}
			return nil, h.Unlock(ctx)
		},
		"forceUnlock": func(ctx context.Context, a *actor, st vectors.Step) (any, error) {
			return a.Client.FairLock(st.Object).ForceUnlock(ctx)
		},
	},
	Queries: map[string]vectors.Query[*redisson.Client, *fairlock.Hold]{
		"isLocked": func(ctx context.Context, a *actor, object string, _ *actor) (any, error) {
			return a.Client.FairLock(object).IsLocked(ctx)
		},
		"isHeldByCurrentThread": func(ctx context.Context, a *actor, object string, _ *actor) (any, error) {
			return a.Client.FairLock(object).IsHeldByOwner(ctx, a.Owner)
		},
		"isHeldByThread": func(ctx context.Context, a *actor, object string, other *actor) (any, error) {
			return a.Client.FairLock(object).IsHeldByOwner(ctx, other.Owner)
		},
		"getHoldCount": func(ctx context.Context, a *actor, object string, _ *actor) (any, error) {
			return a.Client.FairLock(object).HoldCount(ctx, a.Owner)
		},
		"remainTimeToLive": func(ctx context.Context, a *actor, object string, _ *actor) (any, error) {
			return a.Client.FairLock(object).RemainTTL(ctx)
		},
	},
	ErrorClass: func(err error) string {
		if errors.Is(err, redisson.ErrNotOwner) {
			return "java.lang.IllegalMonitorStateException"
		}
		return fmt.Sprintf("unmapped Go error: %v", err)
	},
}

func options(a *actor, st vectors.Step) []fairlock.Option {
	opts := []fairlock.Option{fairlock.WithOwner(a.Owner)}
	if d, ok := st.Arg("lease_ms"); ok {
		opts = append(opts, fairlock.WithLease(d))
	}
	return opts
}

// TestJavaVectors replays every RFairLock scenario recorded with Java
// Redisson 3.52.0 with Go actors and compares outcome, messages and the
// whole Redis state (queue, timeout zset relative to now, TTLs) after each
// step with the record.
func TestJavaVectors(t *testing.T) {
	f, err := vectors.Load("fairlock.json")
	require.NoError(t, err)
	require.Equal(t, "3.52.0", f.RedissonVersion)
	srv := redistest.StartServer(t)
	for _, sc := range f.Scenarios {
		t.Run(sc.Name, func(t *testing.T) { vectors.Replay(t, srv, sc, fairActions) })
	}
}
