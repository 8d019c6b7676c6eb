package multilock_test

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
	"github.com/goredisson/redisson/multilock"
	"github.com/goredisson/redisson/redissontest"
	"github.com/goredisson/redisson/rlock"
)

// unlocker is what an actor keeps per object: a multi-lock hold for
// "[m1,m2,m3]", an RLock hold for a single name.
type unlocker interface {
	Unlock(ctx context.Context) error
}

type actor = vectors.Actor[*redisson.Client, unlocker]

// multiLock returns the multi-lock (or, when the Java call was on a
// RedLock, the RedLock) of the actor's client that st.Object names, or nil
// for a single lock.
func multiLock(a *actor, st vectors.Step) *multilock.Lock {
	if !strings.HasPrefix(st.Object, "[") {
		return nil
	}
	members := rlocks(a.Client, strings.Split(strings.Trim(st.Object, "[]"), ",")...)
	if strings.HasPrefix(st.Java, "redLock.") {
		return multilock.NewRedLock(members...)
	}
	return multilock.New(members...)
}

// multiActions is what the records' multi-lock, RedLock and RLock ops mean
// in Go; every actor acquires with its fixed owner id.
var multiActions = vectors.Actions[*redisson.Client, unlocker]{
	NewClient: func(t testing.TB, srv *redistest.Server, sc vectors.Scenario) (*redisson.Client, string) {
		c := redissontest.ClientAt(t, srv.Addr(), redisson.WithWatchdogTimeout(sc.WatchdogTimeout()))
		return c, c.ID()
	},
	Calls: map[string]vectors.Call[*redisson.Client, unlocker]{
		"lock": func(ctx context.Context, a *actor, st vectors.Step) (any, error) {
			if _, ok := st.Arg("wait_ms"); ok {
				return nil, fmt.Errorf("lock takes no wait_ms")
			}
			lease, hasLease := st.Arg("lease_ms")
			var h unlocker
			var err error
			if m := multiLock(a, st); m != nil {
				opts := []multilock.Option{multilock.WithOwner(a.Owner)}
				if hasLease {
					opts = append(opts, multilock.WithLease(lease))
				}
				h, err = m.Lock(ctx, opts...)
			} else {
				opts := []rlock.Option{rlock.WithOwner(a.Owner)}
				if hasLease {
					opts = append(opts, rlock.WithLease(lease))
				}
				h, err = a.Client.Lock(st.Object).Lock(ctx, opts...)
			}
			if err != nil {
				return nil, err
			}
			a.Push(st.Object, h)
			return nil, nil
		},
		"tryLock": func(ctx context.Context, a *actor, st vectors.Step) (any, error) {
			wait, hasWait := st.Arg("wait_ms")
			lease, hasLease := st.Arg("lease_ms")
			var h unlocker
			var ok bool
			var err error
			if m := multiLock(a, st); m != nil {
				opts := []multilock.Option{multilock.WithOwner(a.Owner)}
				if hasWait {
					opts = append(opts, multilock.WithWait(wait))
				}
				if hasLease {
					opts = append(opts, multilock.WithLease(lease))
				}
				var mh *multilock.Hold
				mh, ok, err = m.TryLock(ctx, opts...)
				h = mh
			} else {
				opts := []rlock.Option{rlock.WithOwner(a.Owner)}
				if hasWait {
					opts = append(opts, rlock.WithWait(wait))
				}
				if hasLease {
					opts = append(opts, rlock.WithLease(lease))
				}
				var rh *rlock.Hold
				rh, ok, err = a.Client.Lock(st.Object).TryLock(ctx, opts...)
				h = rh
			}
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
	},
	ErrorClass: func(err error) string {
		if errors.Is(err, redisson.ErrNotOwner) {
			return "java.lang.IllegalMonitorStateException"
		}
		return fmt.Sprintf("unmapped Go error: %v", err)
	},
}

// TestJavaVectors replays every multi-lock and RedLock scenario recorded
// with Java Redisson 3.52.0 with Go actors and compares outcome, messages
// and the whole Redis state after each step with the record.
func TestJavaVectors(t *testing.T) {
	f, err := vectors.Load("multilock.json")
	require.NoError(t, err)
	require.Equal(t, "3.52.0", f.RedissonVersion)
	require.NotEmpty(t, f.Scenarios)
	srv := redistest.StartServer(t)
	for _, sc := range f.Scenarios {
		t.Run(sc.Name, func(t *testing.T) { vectors.Replay(t, srv, sc, multiActions) })
	}
}
