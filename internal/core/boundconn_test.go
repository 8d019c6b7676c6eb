package core

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson/internal/conns"
	"github.com/goredisson/redisson/internal/redistest"
)

// claimedConns returns how many of the idle dedicated connections to node
// were claimed with a boundConn.
func claimedConns(rt *Runtime, node *redis.Client) (claimed, idle int) {
	return rt.conns.Claimed(node)
}

// TestBoundCallEndsWithItsContext: a script call whose context may end
// before go-redis' ReadTimeout (or with none) runs on a dedicated connection bound by the context
// (no goroutine): when Redis goes silent (CLIENT PAUSE), the call ends at
// the deadline, or at the cancellation, with the connection dropped, instead
// of waiting for the pause to end (ReadTimeout is a minute here); the next
// call is not cut short by the earlier bound.
func TestBoundCallEndsWithItsContext(t *testing.T) {
	for _, rto := range []time.Duration{time.Minute, -1} {
		t.Run(fmt.Sprintf("ReadTimeout=%v", rto), func(t *testing.T) { testBoundCall(t, rto) })
	}
}

func testBoundCall(t *testing.T, readTimeout time.Duration) {
	srv := redistest.StartServer(t)
	rdb := srv.NewClient(func(o *redis.Options) { o.ReadTimeout = readTimeout })
	t.Cleanup(func() { rdb.Close() })
	raw := redistest.Client(t, srv)
	rt := newTestRuntime(t, rdb)
	ctx := context.Background()

	// Taken aside, the dedicated connection is claimed by its first
	// bounded call, and serves it.
	require.Equal(t, 1, firstBoundCall(t, rt, rdb), "the dedicated connection runs on a boundConn")

	// Its bound is over: a call without one is not cut short.
	v, _, err := rt.Run(ctx, echoScript, RunOpts{Synced: true}, []string{"k"}, "b")
	require.NoError(t, err)
	require.Equal(t, "b", v)

	cases := []struct {
		name  string
		ctx   func() (context.Context, context.CancelFunc)
		cause error
	}{
		{"deadline", func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(ctx, 200*time.Millisecond)
		}, context.DeadlineExceeded},
		{"within", func() (context.Context, context.CancelFunc) {
			// A bound set by Within, on a context that is never done.
			wctx := rt.conns.Within(context.WithoutCancel(ctx), 200*time.Millisecond)
			require.NotEqual(t, context.WithoutCancel(ctx), wctx, "ReadTimeout is longer: the bound is needed")
			return wctx, func() {}
		}, context.DeadlineExceeded},
	}
	if readTimeout < 0 {
		// Without ReadTimeout a cancellation cuts the call too; with one,
		// it is seen at the deadline (or within ReadTimeout), as on any
		// call go-redis makes.
		cases = append(cases, struct {
			name  string
			ctx   func() (context.Context, context.CancelFunc)
			cause error
		}{"cancel", func() (context.Context, context.CancelFunc) {
			cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
			time.AfterFunc(200*time.Millisecond, cancel)
			return cctx, cancel
		}, context.Canceled})
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// One claimed connection ready.
			wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			_, _, err := rt.Run(wctx, echoScript, RunOpts{Synced: true}, []string{"k"}, "warm")
			cancel()
			require.NoError(t, err)
			cctx, cancel := tc.ctx()
			defer cancel()
			err = evalWhilePaused(cctx, t, rt, raw)
			var ab *conns.AbandonedError
			require.ErrorAs(t, err, &ab)
			require.ErrorIs(t, err, tc.cause)
			_, idle := claimedConns(rt, rdb)
			require.Zero(t, idle, "the cut connection was dropped, not kept")
			// The next call gets a fresh connection and, once the pause is
			// over, a reply.
			v, _, err := rt.Run(ctx, echoScript, RunOpts{Synced: true}, []string{"k"}, "after")
			require.NoError(t, err)
			require.Equal(t, "after", v)
		})
	}
}

// TestClaimSkipsUnwrappedConnections: a connection dialled before the
// client's dial hook was added has no boundConn; its calls are bounded the
// old way (Bounded) and still end with their context.
func TestClaimSkipsUnwrappedConnections(t *testing.T) {
	srv := redistest.StartServer(t)
	rdb := srv.NewClient(func(o *redis.Options) { o.ReadTimeout = time.Minute; o.PoolSize = 4 })
	t.Cleanup(func() { rdb.Close() })
	ctx := context.Background()
	require.NoError(t, rdb.Ping(ctx).Err()) // dialled before the hook
	rt := newTestRuntime(t, rdb)

	require.Zero(t, firstBoundCall(t, rt, rdb), "the pool's one connection predates the hook")

	raw := redistest.Client(t, srv)
	cctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	// Had it waited for the pause to end, it would have its reply.
	err := evalWhilePaused(cctx, t, rt, raw)
	require.True(t, errors.Is(err, context.DeadlineExceeded), "%v", err)

	// So do calls bounded by Within: Bounded makes the bound a deadline.
	err = evalWhilePaused(rt.conns.Within(ctx, 200*time.Millisecond), t, rt, raw)
	require.True(t, errors.Is(err, context.DeadlineExceeded), "%v", err)
}

// TestWithin: Within adds a bound only where go-redis' ReadTimeout or the
// context's own deadline would not end a call as soon.
func TestWithin(t *testing.T) {
	srv := redistest.StartServer(t)
	ctx := context.Background()
	soon, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	cases := []struct {
		name        string
		readTimeout time.Duration
		ctxTimeouts bool // ContextTimeoutEnabled
		ctx         context.Context
		d           time.Duration
		bound       bool
	}{
		{"ReadTimeout later", 5 * time.Second, false, ctx, 3 * time.Second, true},
		{"ReadTimeout later, ContextTimeoutEnabled", 5 * time.Second, true, ctx, 3 * time.Second, true},
		{"ReadTimeout as soon", 3 * time.Second, false, ctx, 3 * time.Second, false},
		{"ReadTimeout a moment later", 3*time.Second + conns.BoundSlack, false, ctx, 3 * time.Second, false},
		{"no ReadTimeout", -1, false, ctx, 3 * time.Second, true},
		{"deadline sooner", 5 * time.Second, false, soon, 3 * time.Second, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rdb := srv.NewClient(func(o *redis.Options) {
				o.ReadTimeout, o.ContextTimeoutEnabled = tc.readTimeout, tc.ctxTimeouts
			})
			defer rdb.Close()
			rt := newTestRuntime(t, rdb)
			before := time.Now()
			wctx := rt.conns.Within(tc.ctx, tc.d)
			limit, ok := conns.Limit(wctx)
			if !tc.bound {
				require.Equal(t, tc.ctx, wctx)
				return
			}
			require.True(t, ok)
			require.True(t, rt.conns.NeedsBound(wctx), "go-redis does not know the bound: the call binds it")
			require.False(t, limit.Before(before.Add(tc.d)), "the bound counts from the call")
			_, has := wctx.Deadline()
			require.False(t, has, "the bound is not the context's deadline")
			require.Nil(t, wctx.Done())
			require.Nil(t, conns.PinOf(wctx), "other values come from the parent")
		})
	}
}

// firstBoundCall makes rt's first script call under a deadline, which
// takes one dedicated connection aside and claims it, and returns how many
// of the idle dedicated connections (one) were claimed with a boundConn.
func firstBoundCall(t *testing.T, rt *Runtime, rdb *redis.Client) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	v, _, err := rt.Run(ctx, echoScript, RunOpts{Synced: true}, []string{"k"}, "a")
	require.NoError(t, err)
	require.Equal(t, "a", v)
	claimed, idle := claimedConns(rt, rdb)
	require.Equal(t, 1, idle)
	return claimed
}

// evalWhilePaused makes Redis answer nobody for 3 s (CLIENT PAUSE; CLIENT
// UNPAUSE would wait too) and returns the error of a script call under ctx
// made meanwhile.
func evalWhilePaused(ctx context.Context, t *testing.T, rt *Runtime, raw *redis.Client) error {
	t.Helper()
	require.NoError(t, raw.Do(context.Background(), "CLIENT", "PAUSE", 3000, "ALL").Err())
	done := make(chan error, 1)
	go func() {
		_, _, err := rt.Run(ctx, echoScript, RunOpts{Synced: true}, []string{"k"}, "silent")
		done <- err
	}()
	select {
	case err := <-done:
		return err
	case <-time.After(15 * time.Second):
		t.Fatal("the call did not end")
		return nil
	}
}
