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

// An actor of the permit-expirable records keeps the ids it acquired.
type pesActor = vectors.Actor[*redisson.Client, string]

type pesCall = vectors.Call[*redisson.Client, string]

type pesQuery = vectors.Query[*redisson.Client, string]

// permitArg resolves a step's "permit" placeholder to the id behind it.
func permitArg(a *pesActor, st vectors.Step) (string, error) {
	p, _ := st.Args["permit"].(string)
	id, ok := a.PermitID(p)
	if !ok {
		return "", fmt.Errorf("step %d: unknown permit %q", st.Step, p)
	}
	return id, nil
}

// leaseOpt turns a step's lease_ms into WithLease, which Acquire and
// TryAcquire both take (as different option types).
func leaseOpt(st vectors.Step) (semaphore.LeaseOption, bool) {
	d, ok := st.Arg("lease_ms")
	return semaphore.WithLease(d), ok
}

// newest is the permit the actor acquired last.
func newest(a *pesActor, object string) (string, error) {
	id, ok := a.Pop(object)
	if !ok {
		return "", fmt.Errorf("%s holds no permit of %s", a.Name, object)
	}
	a.Push(object, id)
	return id, nil
}

func pesCount(f func(*semaphore.ExpirableSemaphore, context.Context) (int, error)) pesQuery {
	return func(ctx context.Context, a *pesActor, object string, _ *pesActor) (any, error) {
		return f(a.Client.PermitExpirableSemaphore(object), ctx)
	}
}

// pesActions is what the records' RPermitExpirableSemaphore ops mean in Go.
var pesActions = vectors.Actions[*redisson.Client, string]{
	NewClient: func(t testing.TB, srv *redistest.Server, sc vectors.Scenario) (*redisson.Client, string) {
		c := redissontest.ClientAt(t, srv.Addr(), redisson.WithWatchdogTimeout(sc.WatchdogTimeout()))
		return c, c.ID()
	},
	Calls: map[string]pesCall{
		"trySetPermits": func(ctx context.Context, a *pesActor, st vectors.Step) (any, error) {
			n, err := permitsArg(st)
			if err != nil {
				return nil, err
			}
			return a.Client.PermitExpirableSemaphore(st.Object).TrySetPermits(ctx, n)
		},
		"setPermits": func(ctx context.Context, a *pesActor, st vectors.Step) (any, error) {
			n, err := permitsArg(st)
			if err != nil {
				return nil, err
			}
			return nil, a.Client.PermitExpirableSemaphore(st.Object).SetPermits(ctx, n)
		},
		"addPermits": func(ctx context.Context, a *pesActor, st vectors.Step) (any, error) {
			n, err := permitsArg(st)
			if err != nil {
				return nil, err
			}
			return nil, a.Client.PermitExpirableSemaphore(st.Object).AddPermits(ctx, n)
		},
		"acquire": func(ctx context.Context, a *pesActor, st vectors.Step) (any, error) {
			var opts []semaphore.ExpirableAcquireOption
			if lease, ok := leaseOpt(st); ok {
				opts = append(opts, lease)
			}
			id, err := a.Client.PermitExpirableSemaphore(st.Object).Acquire(ctx, opts...)
			if err != nil {
				return nil, err
			}
			a.Push(st.Object, id)
			return vectors.PermitID(id), nil
		},
		"tryAcquire": func(ctx context.Context, a *pesActor, st vectors.Step) (any, error) {
			var opts []semaphore.ExpirableTryOption
			if lease, ok := leaseOpt(st); ok {
				opts = append(opts, lease)
			}
			if d, ok := st.Arg("wait_ms"); ok {
				opts = append(opts, semaphore.WithWait(d))
			}
			id, ok, err := a.Client.PermitExpirableSemaphore(st.Object).TryAcquire(ctx, opts...)
			if err != nil || !ok {
				return nil, err // Java's null
			}
			a.Push(st.Object, id)
			return vectors.PermitID(id), nil
		},
		"release": func(ctx context.Context, a *pesActor, st vectors.Step) (any, error) {
			id, err := permitArg(a, st)
			if err != nil {
				return nil, err
			}
			return nil, a.Client.PermitExpirableSemaphore(st.Object).Release(ctx, id)
		},
		"tryRelease": func(ctx context.Context, a *pesActor, st vectors.Step) (any, error) {
			id, err := permitArg(a, st)
			if err != nil {
				return nil, err
			}
			return a.Client.PermitExpirableSemaphore(st.Object).TryRelease(ctx, id)
		},
		"updateLeaseTime": func(ctx context.Context, a *pesActor, st vectors.Step) (any, error) {
			id, err := permitArg(a, st)
			if err != nil {
				return nil, err
			}
			d, _ := st.Arg("lease_ms")
			return a.Client.PermitExpirableSemaphore(st.Object).UpdateLeaseTime(ctx, id, d)
		},
		"availablePermits": func(ctx context.Context, a *pesActor, st vectors.Step) (any, error) {
			return a.Client.PermitExpirableSemaphore(st.Object).AvailablePermits(ctx)
		},
	},
	Queries: map[string]pesQuery{
		"availablePermits": pesCount((*semaphore.ExpirableSemaphore).AvailablePermits),
		"getPermits":       pesCount((*semaphore.ExpirableSemaphore).Permits),
		"acquiredPermits":  pesCount((*semaphore.ExpirableSemaphore).AcquiredPermits),
		"getLeaseTime": func(ctx context.Context, a *pesActor, object string, _ *pesActor) (any, error) {
			id, err := newest(a, object)
			if err != nil {
				return nil, err
			}
			return a.Client.PermitExpirableSemaphore(object).LeaseTime(ctx, id)
		},
	},
	ErrorClass: func(err error) string {
		switch {
		case errors.Is(err, redisson.ErrInvalidArgument):
			return "java.lang.IllegalArgumentException"
		case errors.Is(err, semaphore.ErrUnknownPermit):
			// Java wraps the IllegalArgumentException of release(id).
			return "org.redisson.client.RedisException"
		}
		return fmt.Sprintf("unmapped Go error: %v", err)
	},
}

// TestExpirableJavaVectors replays every RPermitExpirableSemaphore scenario
// recorded with Java Redisson 3.52.0 with Go actors and compares outcome,
// messages and the whole Redis state after each step with the record.
func TestExpirableJavaVectors(t *testing.T) {
	f, err := vectors.Load("permitexpirablesemaphore.json")
	require.NoError(t, err)
	require.Equal(t, "3.52.0", f.RedissonVersion)
	require.Len(t, f.Scenarios, 6)
	srv := redistest.StartServer(t)
	for _, sc := range f.Scenarios {
		t.Run(sc.Name, func(t *testing.T) { vectors.Replay(t, srv, sc, pesActions) })
	}
}
