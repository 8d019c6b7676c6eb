package ratelimit_test

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/ratelimit"
	"github.com/goredisson/redisson/redissontest"
)

// snapshot returns every key with its serialized value, to compare the
// whole state before and after a call; the clients' registration records
// are not part of it.
func snapshot(t testing.TB, raw *redis.Client) map[string]string {
	t.Helper()
	ctx := context.Background()
	keys := redistest.Keys(t, raw, "*")
	out := map[string]string{}
	for _, k := range keys {
		v, err := raw.Dump(ctx, k).Result()
		require.NoError(t, err)
		out[k] = v
	}
	return out
}

// limiterOp is one call of a limiter, named as its errors name it.
type limiterOp struct {
	op   string
	call func(ctx context.Context, l *ratelimit.Limiter) error
}

// stateOps are the calls that run the scripts reading the value and grants
// keys.
var stateOps = []limiterOp{
	{"try acquire", func(ctx context.Context, l *ratelimit.Limiter) error { _, err := l.TryAcquire(ctx, 1); return err }},
	{"try acquire", func(ctx context.Context, l *ratelimit.Limiter) error {
		_, err := l.TryAcquire(ctx, 1, ratelimit.WithWait(time.Second))
		return err
	}},
	{"acquire", func(ctx context.Context, l *ratelimit.Limiter) error { return l.Acquire(ctx, 1) }},
	{"available permits", func(ctx context.Context, l *ratelimit.Limiter) error { _, err := l.AvailablePermits(ctx); return err }},
	{"release", func(ctx context.Context, l *ratelimit.Limiter) error { return l.Release(ctx, 1) }},
}

// configOps are the calls that touch the config hash only.
var configOps = []limiterOp{
	{"config", func(ctx context.Context, l *ratelimit.Limiter) error { _, err := l.Config(ctx); return err }},
	{"try set rate", func(ctx context.Context, l *ratelimit.Limiter) error {
		_, err := l.TrySetRate(ctx, ratelimit.Overall, 3, time.Second)
		return err
	}},
	{"set rate", func(ctx context.Context, l *ratelimit.Limiter) error {
		return l.SetRate(ctx, ratelimit.Overall, 3, time.Second)
	}},
}

// TestWrongTypeKeys: a key of the limiter that holds another type, or a
// value key that holds no number, fails every call that uses it with
// ErrWrongType naming the key, what it holds and what it should hold, and
// nothing is written (no WRONGTYPE from Redis, no "hash, not a hash").
func TestWrongTypeKeys(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	c := redissontest.ClientAt(t, srv.Addr())
	ctx := context.Background()
	cid := c.ID()

	tests := []struct {
		name   string
		typ    ratelimit.RateType
		key    string // the key put in the way
		setup  func(key string) error
		detail string
		config bool // the config key itself: every call fails
	}{
		{"config is a string", ratelimit.Overall, "rl", func(k string) error { return raw.Set(ctx, k, "x", 0).Err() },
			"rl holds a string, not a hash", true},
		{"config is a list", ratelimit.Overall, "rl", func(k string) error { return raw.RPush(ctx, k, "x").Err() },
			"rl holds a list, not a hash", true},
		{"config is a set", ratelimit.Overall, "rl", func(k string) error { return raw.SAdd(ctx, k, "x").Err() },
			"rl holds a set, not a hash", true},
		{"value is a hash", ratelimit.Overall, "{rl}:value", func(k string) error { return raw.HSet(ctx, k, "f", "1").Err() },
			"{rl}:value holds a hash, not a string", false},
		{"value is a list", ratelimit.Overall, "{rl}:value", func(k string) error { return raw.RPush(ctx, k, "1").Err() },
			"{rl}:value holds a list, not a string", false},
		{"value is no number", ratelimit.Overall, "{rl}:value", func(k string) error { return raw.Set(ctx, k, "abc", 0).Err() },
			`{rl}:value holds "abc", not a number of permits`, false},
		{"permits is a string", ratelimit.Overall, "{rl}:permits", func(k string) error { return raw.Set(ctx, k, "x", 0).Err() },
			"{rl}:permits holds a string, not a zset", false},
		{"permits is a hash", ratelimit.Overall, "{rl}:permits", func(k string) error { return raw.HSet(ctx, k, "f", "1").Err() },
			"{rl}:permits holds a hash, not a zset", false},
		{"client value is a set", ratelimit.PerClient, "{rl}:value:" + cid, func(k string) error { return raw.SAdd(ctx, k, "x").Err() },
			"{rl}:value:" + cid + " holds a set, not a string", false},
		{"client permits is a list", ratelimit.PerClient, "{rl}:permits:" + cid, func(k string) error { return raw.RPush(ctx, k, "x").Err() },
			"{rl}:permits:" + cid + " holds a list, not a zset", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			require.NoError(t, raw.FlushAll(ctx).Err())
			l := c.RateLimiter("rl")
			if !tc.config {
				ok, err := l.TrySetRate(ctx, tc.typ, 3, time.Minute)
				require.NoError(t, err)
				require.True(t, ok)
			}
			require.NoError(t, tc.setup(tc.key))
			before := snapshot(t, raw)

			ops := stateOps
			if tc.config {
				ops = append(append([]limiterOp{}, stateOps...), configOps...)
			}
			for _, op := range ops {
				err := op.call(ctx, l)
				require.ErrorIs(t, err, redisson.ErrWrongType, op.op)
				require.Contains(t, err.Error(), `rate limiter "rl": `+op.op+": ")
				require.Contains(t, err.Error(), tc.detail, op.op)
				require.NotContains(t, err.Error(), "WRONGTYPE", op.op)
				require.Equal(t, before, snapshot(t, raw), "%s: nothing written", op.op)
			}
			if !tc.config {
				_, err := l.Config(ctx)
				require.NoError(t, err, "the config itself is fine")
				require.NoError(t, raw.Del(ctx, tc.key).Err())
				ok, err := l.TryAcquire(ctx, 1)
				require.NoError(t, err)
				require.True(t, ok, "usable once the key is out of the way")
			}
		})
	}
}

// TestCorruptConfigField: a config field that holds no integer fails the
// acquire, release and available-permits scripts with ErrWrongType naming
// the field and its value, as Config does, instead of a Lua error, and
// nothing is written: no value key, no grant.
func TestCorruptConfigField(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	c := redissontest.ClientAt(t, srv.Addr())
	ctx := context.Background()

	tests := []struct {
		field, value string
	}{
		{"rate", "abc"},
		{"rate", "1.5"},
		{"interval", "abc"},
		{"type", "x"},
		{"keepAliveTime", "abc"},
	}
	for _, tc := range tests {
		t.Run(tc.field+"="+tc.value, func(t *testing.T) {
			require.NoError(t, raw.FlushAll(ctx).Err())
			l := c.RateLimiter("rl")
			ok, err := l.TrySetRate(ctx, ratelimit.Overall, 3, time.Minute)
			require.NoError(t, err)
			require.True(t, ok)
			require.NoError(t, raw.HSet(ctx, "rl", tc.field, tc.value).Err())
			before := snapshot(t, raw)
			detail := `the field ` + tc.field + ` holds "` + tc.value + `"`

			for _, op := range append(append([]limiterOp{}, stateOps...), configOps[0]) {
				err := op.call(ctx, l)
				require.ErrorIs(t, err, redisson.ErrWrongType, op.op)
				require.Contains(t, err.Error(), `rate limiter "rl": `+op.op+": ")
				require.Contains(t, err.Error(), detail, op.op)
				require.NotContains(t, err.Error(), "user_script", op.op)
				require.Equal(t, before, snapshot(t, raw), "%s: nothing written", op.op)
			}
		})
	}
}

// TestRefusedAcquireWritesNothing: an acquire that is refused, by an answer
// (the window is full) or an error (not initialised, above the rate, a key
// in the way, a corrupt config), leaves Redis exactly as it found it; in
// particular it creates no value key.
func TestRefusedAcquireWritesNothing(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	c := redissontest.ClientAt(t, srv.Addr())
	ctx := context.Background()

	setRate := func(typ ratelimit.RateType, rate int64) func(t *testing.T, l *ratelimit.Limiter) {
		return func(t *testing.T, l *ratelimit.Limiter) {
			ok, err := l.TrySetRate(ctx, typ, rate, time.Minute)
			require.NoError(t, err)
			require.True(t, ok)
		}
	}
	fill := func(typ ratelimit.RateType) func(t *testing.T, l *ratelimit.Limiter) {
		return func(t *testing.T, l *ratelimit.Limiter) {
			setRate(typ, 2)(t, l)
			ok, err := l.TryAcquire(ctx, 2)
			require.NoError(t, err)
			require.True(t, ok)
		}
	}
	tryOnce := func(l *ratelimit.Limiter) (bool, error) { return l.TryAcquire(ctx, 1) }

	tests := []struct {
		name    string
		setup   func(t *testing.T, l *ratelimit.Limiter)
		call    func(l *ratelimit.Limiter) (bool, error)
		wantErr error
	}{
		{"not initialised", func(*testing.T, *ratelimit.Limiter) {}, tryOnce, ratelimit.ErrNotInitialized},
		{"not initialised, value key left", func(t *testing.T, l *ratelimit.Limiter) {
			require.NoError(t, raw.Set(ctx, "{rl}:value", "1", 0).Err())
		}, tryOnce, ratelimit.ErrNotInitialized},
		{"above the rate", setRate(ratelimit.Overall, 2), func(l *ratelimit.Limiter) (bool, error) {
			return l.TryAcquire(ctx, 3)
		}, ratelimit.ErrExceedsRate},
		{"window full", fill(ratelimit.Overall), tryOnce, nil},
		{"window full, per client", fill(ratelimit.PerClient), tryOnce, nil},
		{"window full, with a wait", fill(ratelimit.Overall), func(l *ratelimit.Limiter) (bool, error) {
			return l.TryAcquire(ctx, 1, ratelimit.WithWait(20*time.Millisecond))
		}, nil},
		{"grants key in the way, no value yet", func(t *testing.T, l *ratelimit.Limiter) {
			setRate(ratelimit.Overall, 2)(t, l)
			require.NoError(t, raw.Set(ctx, "{rl}:permits", "x", 0).Err())
		}, tryOnce, redisson.ErrWrongType},
		{"corrupt keep-alive, no value yet", func(t *testing.T, l *ratelimit.Limiter) {
			setRate(ratelimit.Overall, 2)(t, l)
			require.NoError(t, raw.HSet(ctx, "rl", "keepAliveTime", "abc").Err())
		}, tryOnce, redisson.ErrWrongType},
		{"corrupt interval, no value yet", func(t *testing.T, l *ratelimit.Limiter) {
			setRate(ratelimit.Overall, 2)(t, l)
			require.NoError(t, raw.HSet(ctx, "rl", "interval", "abc").Err())
		}, tryOnce, redisson.ErrWrongType},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			require.NoError(t, raw.FlushAll(ctx).Err())
			l := c.RateLimiter("rl")
			tc.setup(t, l)
			before := snapshot(t, raw)

			ok, err := tc.call(l)
			require.False(t, ok)
			if tc.wantErr != nil {
				require.ErrorIs(t, err, tc.wantErr)
			} else {
				require.NoError(t, err)
			}
			require.Equal(t, before, snapshot(t, raw), "a refusal writes nothing")
		})
	}
}
