package ratelimit_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/internal/vectors"
	"github.com/goredisson/redisson/ratelimit"
	"github.com/goredisson/redisson/redissontest"
)

type actor = vectors.Actor[*redisson.Client, struct{}]

type call = vectors.Call[*redisson.Client, struct{}]

// permitsArg is a step's "permits" argument.
func permitsArg(st vectors.Step) (int64, error) {
	n, ok := st.Int("permits")
	if !ok {
		return 0, fmt.Errorf("step %d: %s needs permits", st.Step, st.Op)
	}
	return n, nil
}

// rateArgs reads a trySetRate/setRate step.
func rateArgs(st vectors.Step) (ratelimit.RateType, int64, time.Duration, []ratelimit.SetOption) {
	typ := ratelimit.Overall
	if st.Args["type"] == "PER_CLIENT" {
		typ = ratelimit.PerClient
	}
	rate, _ := st.Int("rate")
	interval, _ := st.Arg("interval_ms")
	var opts []ratelimit.SetOption
	if d, ok := st.Arg("keep_alive_ms"); ok {
		opts = append(opts, ratelimit.WithKeepAlive(d))
	}
	return typ, rate, interval, opts
}

// rateActions is what the records' RRateLimiter ops mean in Go.
var rateActions = vectors.Actions[*redisson.Client, struct{}]{
	NewClient: func(t testing.TB, srv *redistest.Server, sc vectors.Scenario) (*redisson.Client, string) {
		c := redissontest.ClientAt(t, srv.Addr(), redisson.WithWatchdogTimeout(sc.WatchdogTimeout()))
		return c, c.ID()
	},
	Calls: map[string]call{
		"trySetRate": func(ctx context.Context, a *actor, st vectors.Step) (any, error) {
			typ, rate, interval, opts := rateArgs(st)
			return a.Client.RateLimiter(st.Object).TrySetRate(ctx, typ, rate, interval, opts...)
		},
		"setRate": func(ctx context.Context, a *actor, st vectors.Step) (any, error) {
			typ, rate, interval, opts := rateArgs(st)
			return nil, a.Client.RateLimiter(st.Object).SetRate(ctx, typ, rate, interval, opts...)
		},
		"tryAcquire": func(ctx context.Context, a *actor, st vectors.Step) (any, error) {
			n, err := permitsArg(st)
			if err != nil {
				return nil, err
			}
			var opts []ratelimit.Option
			if d, ok := st.Arg("wait_ms"); ok {
				opts = append(opts, ratelimit.WithWait(d))
			}
			return a.Client.RateLimiter(st.Object).TryAcquire(ctx, n, opts...)
		},
		"acquire": func(ctx context.Context, a *actor, st vectors.Step) (any, error) {
			n, err := permitsArg(st)
			if err != nil {
				return nil, err
			}
			return nil, a.Client.RateLimiter(st.Object).Acquire(ctx, n)
		},
		"release": func(ctx context.Context, a *actor, st vectors.Step) (any, error) {
			n, err := permitsArg(st)
			if err != nil {
				return nil, err
			}
			return nil, a.Client.RateLimiter(st.Object).Release(ctx, n)
		},
		"availablePermits": func(ctx context.Context, a *actor, st vectors.Step) (any, error) {
			return a.Client.RateLimiter(st.Object).AvailablePermits(ctx)
		},
		"getConfig": func(ctx context.Context, a *actor, st vectors.Step) (any, error) {
			c, err := a.Client.RateLimiter(st.Object).Config(ctx)
			if err != nil {
				return nil, err
			}
			return map[string]any{"rateType": c.Type.String(), "rate": c.Rate, "rateInterval": c.Interval.Milliseconds()}, nil
		},
		"expire": func(ctx context.Context, a *actor, st vectors.Step) (any, error) {
			d, _ := st.Arg("ttl_ms")
			return a.Client.RateLimiter(st.Object).Expire(ctx, d)
		},
		"delete": func(ctx context.Context, a *actor, st vectors.Step) (any, error) {
			return a.Client.RateLimiter(st.Object).Delete(ctx)
		},
	},
	ErrorClass: func(err error) string {
		switch {
		case errors.Is(err, ratelimit.ErrExceedsRate), errors.Is(err, ratelimit.ErrNotInitialized):
			// Script assertions: Java sees a RedisException.
			return "org.redisson.client.RedisException"
		case errors.Is(err, redisson.ErrInvalidArgument):
			return "java.lang.IllegalArgumentException"
		}
		return fmt.Sprintf("unmapped Go error: %v", err)
	},
}

// TestJavaVectors replays every RRateLimiter scenario recorded with Java
// Redisson 3.52.0 with Go actors and compares outcome and the whole Redis
// state after each step with the record.
func TestJavaVectors(t *testing.T) {
	f, err := vectors.Load("ratelimiter.json")
	require.NoError(t, err)
	require.Equal(t, "3.52.0", f.RedissonVersion)
	require.Len(t, f.Scenarios, 7)
	srv := redistest.StartServer(t)
	for _, sc := range f.Scenarios {
		t.Run(sc.Name, func(t *testing.T) { vectors.Replay(t, srv, sc, rateActions) })
	}
}
