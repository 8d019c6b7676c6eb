package fairlock_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/fairlock"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/internal/vectors"
)

// nrActions is what the records' ops mean for the non-reentrant fair lock:
// fairActions' calls on NonReentrantFairLock, on clients that name their
// connections C1 and C2 for the command log, which the replay compares
// whole (the scripts' own calls included).
func nrActions(testing.TB) vectors.Actions[*redisson.Client, *fairlock.Hold] {
	clients := 0
	get := func(c *redisson.Client, name string) *fairlock.NonReentrantLock { return c.NonReentrantFairLock(name) }
	return vectors.Actions[*redisson.Client, *fairlock.Hold]{
		NewClient: func(t testing.TB, srv *redistest.Server, sc vectors.Scenario) (*redisson.Client, string) {
			clients++
			name := fmt.Sprintf("C%d", clients) // the command log's names
			rdb := srv.NewClient(func(o *redis.Options) { o.ClientName = name })
			t.Cleanup(func() { _ = rdb.Close() })
			c, err := redisson.New(rdb, redisson.WithWatchdogTimeout(sc.WatchdogTimeout()))
			require.NoError(t, err)
			t.Cleanup(func() { _ = c.Close() })
			return c, c.ID()
		},
		Calls: map[string]vectors.Call[*redisson.Client, *fairlock.Hold]{
			"lock": func(ctx context.Context, a *actor, st vectors.Step) (any, error) {
				h, err := get(a.Client, st.Object).Lock(ctx, options(a, st)...)
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
				h, ok, err := get(a.Client, st.Object).TryLock(ctx, opts...)
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
					a.SkipRequest()
					return nil, fmt.Errorf("%w: %s holds no hold of %q", redisson.ErrNotOwner, a.Name, st.Object)
				}
				return nil, h.Unlock(ctx)
			},
		},
		Queries: map[string]vectors.Query[*redisson.Client, *fairlock.Hold]{
			"isLocked": func(ctx context.Context, a *actor, object string, _ *actor) (any, error) {
				return get(a.Client, object).IsLocked(ctx)
			},
			"isHeldByCurrentThread": func(ctx context.Context, a *actor, object string, _ *actor) (any, error) {
				return get(a.Client, object).IsHeldByOwner(ctx, a.Owner)
			},
			"getHoldCount": func(ctx context.Context, a *actor, object string, _ *actor) (any, error) {
				return get(a.Client, object).HoldCount(ctx, a.Owner)
			},
			"remainTimeToLive": func(ctx context.Context, a *actor, object string, _ *actor) (any, error) {
				return get(a.Client, object).RemainTTL(ctx)
			},
		},
		ErrorClass: func(err error) string {
			if errors.Is(err, redisson.ErrNotOwner) || errors.Is(err, redisson.ErrNonReentrant) {
				return "java.lang.IllegalMonitorStateException"
			}
			return fmt.Sprintf("unmapped Go error: %v", err)
		},
		Deviations: []vectors.Deviation{{
			// Java's second unlock() of the free lock runs the unlock
			// script, which answers 1 for an absent lock (RFairLock's);
			// a Go caller has no hold left to call Unlock on: a second
			// Unlock of the same hold sends nothing and reports
			// ErrNotOwner.
			Scenario: "nonreentrantfairlock.basic", Step: 10,
			Why: "a second Unlock of a hold sends nothing and fails",
			Fields: map[string]any{
				"ok":       false,
				"error":    map[string]any{"class": "java.lang.IllegalMonitorStateException"},
				"commands": []any{},
			},
		},
			refusedInClient(3), refusedInClient(4), refusedInClient(5), refusedInClient(12),
		},
		AllCommands:     true,
		KeptLatch:       true,
		UnlatchedStates: true, // 4.7.0 deletes its latches
	}
}

// refusedInClient is the deviation of the holder's second acquisition in
// the basic scenario: Java's script refuses it in Redis, this library
// before sending anything, so that a lost reply's recovery can never take
// the hold the owner has for the refused try's (docs/locks.md). Error and
// state are Java's.
func refusedInClient(step int) vectors.Deviation {
	return vectors.Deviation{
		Scenario: "nonreentrantfairlock.basic", Step: step,
		Why:    "a holder's re-entry is refused before anything is sent",
		Fields: map[string]any{"commands": []any{}},
	}
}

// TestNonReentrantJavaVectors replays the non-reentrant fair lock's records
// of Redisson 4.7.0 (3.52.0 has no such lock): outcomes, messages, every
// command the clients sent with the scripts' own calls, and the whole
// Redis state (queue, timeout zset relative to now) after each step; the
// holder's second Lock, TryLock and TryLock with a wait fail with
// ErrNonReentrant and change nothing.
func TestNonReentrantJavaVectors(t *testing.T) {
	f, err := vectors.Load("redisson-4.7.0/nonreentrantfairlock.json")
	require.NoError(t, err)
	require.Equal(t, "4.7.0", f.RedissonVersion)
	require.Len(t, f.Scenarios, 2)
	srv := redistest.StartServer(t)
	for _, sc := range f.Scenarios {
		t.Run(sc.Name, func(t *testing.T) { vectors.ReplayFresh(t, srv, sc, nrActions) })
	}
}
