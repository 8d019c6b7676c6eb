package rlock_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/internal/vectors"
	"github.com/goredisson/redisson/rlock"
)

// kindLock is what the records of the spin lock and the non-reentrant lock
// call on a lock: both kinds have it.
type kindLock interface {
	Lock(ctx context.Context, opts ...rlock.Option) (*rlock.Hold, error)
	TryLock(ctx context.Context, opts ...rlock.Option) (*rlock.Hold, bool, error)
	ForceUnlock(ctx context.Context) (bool, error)
	IsLocked(ctx context.Context) (bool, error)
	IsHeldByOwner(ctx context.Context, owner int64) (bool, error)
	HoldCount(ctx context.Context, owner int64) (int, error)
	RemainTTL(ctx context.Context) (time.Duration, error)
}

// kindActions is what the records' ops mean for the lock kind get returns.
// The clients name their connections C1 and C2 for the command log, which
// the replay compares whole (the scripts' own calls included). Each actor
// has a fixed owner id passed WithOwner, as a Java thread has one.
func kindActions(get func(c *redisson.Client, name string) kindLock, latchesDeleted bool, devs []vectors.Deviation) func(testing.TB) vectors.Actions[*redisson.Client, *rlock.Hold] {
	return func(testing.TB) vectors.Actions[*redisson.Client, *rlock.Hold] {
		clients := 0
		return vectors.Actions[*redisson.Client, *rlock.Hold]{
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
			Calls:           kindCalls(get),
			Queries:         kindQueries(get),
			ErrorClass:      kindErrorClass,
			Deviations:      devs,
			AllCommands:     true,
			KeptLatch:       true,
			UnlatchedStates: latchesDeleted,
		}
	}
}

func kindCalls(get func(c *redisson.Client, name string) kindLock) map[string]vectors.Call[*redisson.Client, *rlock.Hold] {
	opts := func(a *actor, st vectors.Step) []rlock.Option {
		o := []rlock.Option{rlock.WithOwner(a.Owner)}
		if d, ok := st.Arg("lease_ms"); ok {
			o = append(o, rlock.WithLease(d))
		}
		return o
	}
	return map[string]vectors.Call[*redisson.Client, *rlock.Hold]{
		"lock": func(ctx context.Context, a *actor, st vectors.Step) (any, error) {
			h, err := get(a.Client, st.Object).Lock(ctx, opts(a, st)...)
			if err != nil {
				return nil, err
			}
			a.Push(st.Object, h)
			return nil, nil
		},
		"tryLock": func(ctx context.Context, a *actor, st vectors.Step) (any, error) {
			o := opts(a, st)
			if d, ok := st.Arg("wait_ms"); ok {
				o = append(o, rlock.WithWait(d))
			}
			h, ok, err := get(a.Client, st.Object).TryLock(ctx, o...)
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
		"forceUnlock": func(ctx context.Context, a *actor, st vectors.Step) (any, error) {
			return get(a.Client, st.Object).ForceUnlock(ctx)
		},
	}
}

func kindQueries(get func(c *redisson.Client, name string) kindLock) map[string]vectors.Query[*redisson.Client, *rlock.Hold] {
	return map[string]vectors.Query[*redisson.Client, *rlock.Hold]{
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
	}
}

func kindErrorClass(err error) string {
	if errors.Is(err, redisson.ErrNotOwner) || errors.Is(err, redisson.ErrNonReentrant) {
		return "java.lang.IllegalMonitorStateException"
	}
	return fmt.Sprintf("unmapped Go error: %v", err)
}

// unlockWithoutHold is the deviation of a record's unlock by an actor that
// holds nothing: Java sends the unlock script, which finds no field and
// changes nothing; a Go caller has no hold to call Unlock on, and the
// replay's error (ErrNotOwner) comes without a command (nor a request id:
// the call skips the one Java's took).
func unlockWithoutHold(scenario string, step int) vectors.Deviation {
	return vectors.Deviation{
		Scenario: scenario, Step: step,
		Why:    "an unlock without a hold sends nothing (holds are values)",
		Fields: map[string]any{"commands": []any{}},
	}
}

// refusedInClient is the deviation of a holder's second acquisition of a
// non-reentrant lock: Java's script refuses it in Redis, this library
// before sending anything, so that a lost reply's recovery can never take
// the hold the owner has for the refused try's (docs/locks.md). Error and
// state are Java's.
func refusedInClient(scenario string, step int) vectors.Deviation {
	return vectors.Deviation{
		Scenario: scenario, Step: step,
		Why:    "a holder's re-entry is refused before anything is sent",
		Fields: map[string]any{"commands": []any{}},
	}
}

// TestSpinLockJavaVectors replays the spin lock's records of Redisson
// 3.52.0 and 4.7.0: outcomes, messages (none), every command the clients
// sent (no SUBSCRIBE while polling) with the scripts' own calls, and the
// whole Redis state after each step.
func TestSpinLockJavaVectors(t *testing.T) {
	srv := redistest.StartServer(t)
	spin := func(c *redisson.Client, name string) kindLock { return c.SpinLock(name) }
	for _, file := range []string{"spinlock.json", "redisson-4.7.0/spinlock.json"} {
		f, err := vectors.Load(file)
		require.NoError(t, err)
		v47 := f.RedissonVersion == "4.7.0"
		require.Len(t, f.Scenarios, 2, file)
		for _, sc := range f.Scenarios {
			t.Run(f.RedissonVersion+"/"+sc.Name, func(t *testing.T) {
				acts := kindActions(spin, v47, []vectors.Deviation{unlockWithoutHold("spinlock.basic", 11)})
				vectors.ReplayFresh(t, srv, sc, acts)
			})
		}
	}
}

// TestNonReentrantLockJavaVectors replays the non-reentrant lock's records
// of Redisson 4.7.0 (3.52.0 has no such lock) as TestSpinLockJavaVectors
// does: the holder's second Lock, TryLock and TryLock with a wait fail with
// ErrNonReentrant and change nothing.
func TestNonReentrantLockJavaVectors(t *testing.T) {
	srv := redistest.StartServer(t)
	nr := func(c *redisson.Client, name string) kindLock { return c.NonReentrantLock(name) }
	f, err := vectors.Load("redisson-4.7.0/nonreentrantlock.json")
	require.NoError(t, err)
	require.Equal(t, "4.7.0", f.RedissonVersion)
	require.Len(t, f.Scenarios, 2)
	for _, sc := range f.Scenarios {
		t.Run(sc.Name, func(t *testing.T) {
			acts := kindActions(nr, true, []vectors.Deviation{{
				// T1 holds the lock through C1: T2's try on the same
				// client is answered without a round trip, as for every
				// lock that hands off locally (docs/interop.md).
				Scenario: "nonreentrantlock.basic", Step: 6,
				Why:    "a try while another owner of the client holds the lock asks no one",
				Fields: map[string]any{"commands": []any{}},
			}, unlockWithoutHold("nonreentrantlock.basic", 10),
				refusedInClient("nonreentrantlock.basic", 3), refusedInClient("nonreentrantlock.basic", 4),
				refusedInClient("nonreentrantlock.basic", 5), refusedInClient("nonreentrantlock.basic", 12)})
			vectors.ReplayFresh(t, srv, sc, acts)
		})
	}
}
