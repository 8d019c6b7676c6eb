package rwlock_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/internal/vectors"
	"github.com/goredisson/redisson/redissontest"
	"github.com/goredisson/redisson/rwlock"
)

type actor = vectors.Actor[*redisson.Client, *rwlock.Hold]

// side returns the read or write lock an op or query ("readLock.lock")
// names, and the op itself.
func side(c *redisson.Client, object, op string) (*rwlock.Lock, string, string) {
	s, name, _ := strings.Cut(op, ".")
	rw := c.ReadWriteLock(object)
	if s == "writeLock" {
		return rw.WriteLock(), name, object + "/write"
	}
	return rw.ReadLock(), name, object + "/read"
}

func call(ctx context.Context, a *actor, st vectors.Step) (any, error) {
	l, op, stack := side(a.Client, st.Object, st.Op)
	opts := []rwlock.Option{rwlock.WithOwner(a.Owner)}
	if d, ok := st.Arg("lease_ms"); ok {
		opts = append(opts, rwlock.WithLease(d))
	}
	switch op {
	case "lock":
		h, err := l.Lock(ctx, opts...)
		if err != nil {
			return nil, err
		}
		a.Push(stack, h)
		return nil, nil
	case "tryLock":
		if d, ok := st.Arg("wait_ms"); ok {
			opts = append(opts, rwlock.WithWait(d))
		}
		h, ok, err := l.TryLock(ctx, opts...)
		if err != nil {
			return nil, err
		}
		if ok {
			a.Push(stack, h)
		}
		return ok, nil
	case "unlock":
		h, ok := a.Pop(stack)
		if !ok {
			return nil, fmt.Errorf("%w: %s holds no hold of %q", redisson.ErrNotOwner, a.Name, stack)
		}
		return nil, h.Unlock(ctx)
	case "forceUnlock":
		return l.ForceUnlock(ctx)
	}
	return nil, fmt.Errorf("no action for %q", st.Op)
}

func query(ctx context.Context, a *actor, object, q string) (any, error) {
	l, op, _ := side(a.Client, object, q)
	switch op {
	case "isLocked":
		return l.IsLocked(ctx)
	case "getHoldCount":
		return l.HoldCount(ctx, a.Owner)
	case "isHeldByCurrentThread":
		return l.IsHeldByOwner(ctx, a.Owner)
	case "remainTimeToLive":
		return l.RemainTTL(ctx)
	}
	return nil, fmt.Errorf("no action for query %q", q)
}

func rwActions(sc vectors.Scenario) vectors.Actions[*redisson.Client, *rwlock.Hold] {
	acts := vectors.Actions[*redisson.Client, *rwlock.Hold]{
		NewClient: func(t testing.TB, srv *redistest.Server, sc vectors.Scenario) (*redisson.Client, string) {
			c := redissontest.ClientAt(t, srv.Addr(), redisson.WithWatchdogTimeout(sc.WatchdogTimeout()))
			return c, c.ID()
		},
		Calls:   map[string]vectors.Call[*redisson.Client, *rwlock.Hold]{},
		Queries: map[string]vectors.Query[*redisson.Client, *rwlock.Hold]{},
		ErrorClass: func(err error) string {
			if errors.Is(err, redisson.ErrNotOwner) {
				return "java.lang.IllegalMonitorStateException"
			}
			return fmt.Sprintf("unmapped Go error: %v", err)
		},
	}
	acts.Deviations = deviations
	for _, st := range sc.Steps {
		if st.Kind == "query" {
			for q := range st.Raw["result"].(map[string]any) {
				name, _, _ := strings.Cut(q, "(")
				acts.Queries[name] = func(ctx context.Context, a *actor, object string, _ *actor) (any, error) {
					return query(ctx, a, object, name)
				}
			}
			continue
		}
		acts.Calls[st.Op] = call
	}
	return acts
}

// ttlKey is the expected state of a read hold's timeout key with a TTL
// bucket of the scenario's 1000 ms grid.
func ttlKey(lo, hi float64) map[string]any {
	return map[string]any{"type": "string", "value": "1", "pttl": []any{lo, hi}}
}

// deviations: Redisson 3.44–3.52's read renewal fails for a re-entrant
// read hold and leaves its timeout keys unrenewed (docs/protocol.md §5.2); ours
// renews them like Redisson 4.4+, so they stay near a full lease and the
// next unlock keeps the hash as long (docs/interop.md).
var deviations = []vectors.Deviation{
	{
		Scenario: "rwlock.read_watchdog_reentrant_bug", Step: 3,
		Why: "read renewal renews every hold's timeout key",
		State: map[string]any{
			"{rw}:<C1>:<T1>:rwlock_timeout:1": ttlKey(2000, 3000),
			"{rw}:<C1>:<T1>:rwlock_timeout:2": ttlKey(2000, 3000),
		},
	},
	{
		Scenario: "rwlock.read_watchdog_reentrant_bug", Step: 4,
		Why: "read renewal renews every hold's timeout key",
		State: map[string]any{
			"rw":                              map[string]any{"type": "hash", "value": map[string]any{"<C1>:<T1>": "1", "mode": "read"}, "pttl": []any{2000.0, 3000.0}},
			"{rw}:<C1>:<T1>:rwlock_timeout:1": ttlKey(2000, 3000),
		},
	},
}

// TestJavaVectors replays every RReadWriteLock scenario recorded with Java
// Redisson 3.52.0 with Go actors.
func TestJavaVectors(t *testing.T) {
	f, err := vectors.Load("rwlock.json")
	require.NoError(t, err)
	require.Equal(t, "3.52.0", f.RedissonVersion)
	srv := redistest.StartServer(t)
	for _, sc := range f.Scenarios {
		t.Run(sc.Name, func(t *testing.T) { vectors.Replay(t, srv, sc, rwActions(sc)) })
	}
}
