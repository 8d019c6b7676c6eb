package ratelimit_test

import (
	"context"
	"encoding/binary"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/ratelimit"
	"github.com/goredisson/redisson/redissontest"
)

// grant is one member of a grants zset as the test reads it.
type grant struct {
	permits uint32
	age     time.Duration
}

// rawGrants decodes a grants zset: length byte 16, 16 random bytes, uint32
// LE permits; score = the granting client's ms clock.
func rawGrants(t testing.TB, raw *redis.Client, key string) []grant {
	t.Helper()
	z, err := raw.ZRangeWithScores(context.Background(), key, 0, -1).Result()
	require.NoError(t, err)
	now := time.Now().UnixMilli()
	out := make([]grant, len(z))
	for i, m := range z {
		b := []byte(m.Member.(string))
		require.Len(t, b, 21)
		require.Equal(t, byte(16), b[0])
		out[i] = grant{binary.LittleEndian.Uint32(b[17:]), time.Duration(now-int64(m.Score)) * time.Millisecond}
	}
	return out
}

// TestRawState checks the hash, value key, grants and TTLs after each
// operation (§13.2), for both types.
func TestRawState(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	ctx := context.Background()
	c := redissontest.ClientAt(t, srv.Addr())
	cid := c.ID()

	for _, tc := range []struct {
		typ     ratelimit.RateType
		typ01   string
		value   string
		permits string
	}{
		{ratelimit.Overall, "0", "{api}:value", "{api}:permits"},
		{ratelimit.PerClient, "1", "{api}:value:" + cid, "{api}:permits:" + cid},
	} {
		t.Run(tc.typ.String(), func(t *testing.T) {
			require.NoError(t, raw.FlushAll(ctx).Err())
			l := c.RateLimiter("api")
			ok, err := l.TrySetRate(ctx, tc.typ, 5, 2*time.Second, ratelimit.WithKeepAlive(10*time.Second))
			require.NoError(t, err)
			require.True(t, ok)
			require.Equal(t, map[string]string{"rate": "5", "interval": "2000", "type": tc.typ01, "keepAliveTime": "10000"},
				raw.HGetAll(ctx, "api").Val())
			require.InDelta(t, 10*time.Second, raw.PTTL(ctx, "api").Val(), float64(time.Second))

			ok, err = l.TryAcquire(ctx, 2)
			require.NoError(t, err)
			require.True(t, ok)
			require.Equal(t, "3", rawValue(t, raw, tc.value))
			gs := rawGrants(t, raw, tc.permits)
			require.Len(t, gs, 1)
			require.Equal(t, uint32(2), gs[0].permits)
			require.Less(t, gs[0].age, time.Second)
			for _, k := range []string{tc.value, tc.permits} {
				require.InDelta(t, 10*time.Second, raw.PTTL(ctx, k).Val(), float64(time.Second), k)
			}

			ok, err = l.TryAcquire(ctx, 4)
			require.NoError(t, err)
			require.False(t, ok)
			require.Equal(t, "3", rawValue(t, raw, tc.value), "a refusal writes nothing")
			require.Len(t, rawGrants(t, raw, tc.permits), 1)

			require.NoError(t, l.Release(ctx, 1))
			require.Equal(t, "4", rawValue(t, raw, tc.value))
			require.Len(t, rawGrants(t, raw, tc.permits), 1, "release leaves the grants")
			n, err := l.AvailablePermits(ctx)
			require.NoError(t, err)
			require.Equal(t, int64(4), n)

			cfg, err := l.Config(ctx)
			require.NoError(t, err)
			require.Equal(t, ratelimit.Config{Type: tc.typ, Rate: 5, Interval: 2 * time.Second, KeepAlive: 10 * time.Second}, cfg)

			require.NoError(t, l.SetRate(ctx, tc.typ, 7, time.Second))
			require.Zero(t, raw.Exists(ctx, tc.value, tc.permits).Val(), "a fresh window")
			require.Equal(t, "7", raw.HGet(ctx, "api", "rate").Val())

			ok, err = l.Delete(ctx)
			require.NoError(t, err)
			require.True(t, ok)
			require.Empty(t, redistest.Keys(t, raw, "*"))
			_, err = l.TryAcquire(ctx, 1)
			require.ErrorIs(t, err, ratelimit.ErrNotInitialized)
			_, err = l.Config(ctx)
			require.ErrorIs(t, err, ratelimit.ErrNotInitialized)
			require.Empty(t, redistest.Keys(t, raw, "*"))
		})
	}
}

// TestAcquireWaitsForTheWindow: Acquire sleeps until the oldest grant
// leaves the window, as computed by the script, and ctx bounds the wait.
func TestAcquireWaitsForTheWindow(t *testing.T) {
	srv := redistest.StartServer(t)
	ctx := context.Background()
	l := redissontest.ClientAt(t, srv.Addr()).RateLimiter("slow")
	_, err := l.TrySetRate(ctx, ratelimit.Overall, 2, 400*time.Millisecond)
	require.NoError(t, err)
	require.NoError(t, l.Acquire(ctx, 2))

	start := time.Now()
	require.NoError(t, l.Acquire(ctx, 1))
	took := time.Since(start)
	require.GreaterOrEqual(t, took, 350*time.Millisecond)
	require.Less(t, took, 2*time.Second)

	// A window of an hour, so that no stall of the machine between the
	// calls can let the window refill under them.
	hourly := redissontest.ClientAt(t, srv.Addr()).RateLimiter("hourly")
	_, err = hourly.TrySetRate(ctx, ratelimit.Overall, 2, time.Hour)
	require.NoError(t, err)
	require.NoError(t, hourly.Acquire(ctx, 1))
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	require.NoError(t, hourly.Acquire(ctx, 1))
	err = hourly.Acquire(short, 1)
	require.ErrorIs(t, err, context.DeadlineExceeded)

	start = time.Now()
	ok, err := hourly.TryAcquire(ctx, 2, ratelimit.WithWait(100*time.Millisecond))
	require.NoError(t, err)
	require.False(t, ok)
	require.GreaterOrEqual(t, time.Since(start), 100*time.Millisecond, "Redisson waits out the wait")
}

// TestAccuracy: 3 clients × 8 goroutines hammer a limiter of 50 per second
// for 2 s, shared (Overall) or one window per client (PerClient). Data
// check, per window: for every grant g, the grants that started no earlier
// and returned within one interval of g's start (in whole ms, the scripts'
// clock) were scored inside one window, so there are at most 50 of them;
// and each window granted within one interval's worth of the rate
// (100 ± 50).
func TestAccuracy(t *testing.T) {
	const rate, interval, run = 50, time.Second, 2 * time.Second
	for _, typ := range []ratelimit.RateType{ratelimit.Overall, ratelimit.PerClient} {
		t.Run(typ.String(), func(t *testing.T) {
			srv := redistest.StartServer(t)
			ctx := context.Background()
			clients := []*redisson.Client{redissontest.ClientAt(t, srv.Addr()), redissontest.ClientAt(t, srv.Addr()), redissontest.ClientAt(t, srv.Addr())}
			_, err := clients[0].RateLimiter("acc").TrySetRate(ctx, typ, rate, interval)
			require.NoError(t, err)

			type span struct{ start, end time.Time }
			var mu sync.Mutex
			windows := map[int][]span{} // window (0, or the client's index) → its grants
			var refused atomic.Int64
			stop := time.Now().Add(run)
			var wg sync.WaitGroup
			for ci, c := range clients {
				w := 0
				if typ == ratelimit.PerClient {
					w = ci
				}
				l := c.RateLimiter("acc")
				for range 8 {
					wg.Go(func() {
						for time.Now().Before(stop) {
							start := time.Now()
							ok, err := l.TryAcquire(ctx, 1)
							end := time.Now()
							require.NoError(t, err)
							if !ok {
								refused.Add(1)
								continue
							}
							if end.After(stop) {
								continue
							}
							mu.Lock()
							windows[w] = append(windows[w], span{start, end})
							mu.Unlock()
						}
					})
				}
			}
			wg.Wait()
			for w, grants := range windows {
				t.Logf("window %d: granted %d (refused in all %d)", w, len(grants), refused.Load())
				require.InDelta(t, rate*int(run/interval), len(grants), rate)
				slices.SortFunc(grants, func(a, b span) int { return a.start.Compare(b.start) })
				for i, g := range grants {
					inWindow := 0
					for _, h := range grants[i:] {
						// g's score is at least g.start's ms, h's at most
						// h.end's; a window holds scores less than one
						// interval apart.
						if h.end.UnixMilli()-g.start.UnixMilli() < interval.Milliseconds() {
							inWindow++
						}
					}
					require.LessOrEqual(t, inWindow, rate, "grants inside one window from %v", g.start)
				}
			}
			if typ == ratelimit.PerClient {
				require.Len(t, windows, len(clients))
			}
		})
	}
}

// TestBadInput: nonsense arguments and a key of another type are clear
// errors and change nothing.
func TestBadInput(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	ctx := context.Background()
	l := redissontest.ClientAt(t, srv.Addr()).RateLimiter("bad")
	_, err := l.TrySetRate(ctx, ratelimit.Overall, 3, time.Second)
	require.NoError(t, err)
	before := raw.HGetAll(ctx, "bad").Val()

	for _, tc := range []struct {
		name string
		run  func() error
		want error
	}{
		{"zero rate", func() error { _, err := l.TrySetRate(ctx, ratelimit.Overall, 0, time.Second); return err }, redisson.ErrInvalidArgument},
		{"tiny interval", func() error { return l.SetRate(ctx, ratelimit.Overall, 1, time.Microsecond) }, redisson.ErrInvalidArgument},
		{"unknown type", func() error { return l.SetRate(ctx, ratelimit.RateType(7), 1, time.Second) }, redisson.ErrInvalidArgument},
		{"keep-alive below interval", func() error {
			return l.SetRate(ctx, ratelimit.Overall, 1, time.Second, ratelimit.WithKeepAlive(500*time.Millisecond))
		}, redisson.ErrInvalidArgument},
		{"negative permits", func() error { _, err := l.TryAcquire(ctx, -1); return err }, redisson.ErrInvalidArgument},
		{"negative release", func() error { return l.Release(ctx, -1) }, redisson.ErrInvalidArgument},
		{"negative wait", func() error { _, err := l.TryAcquire(ctx, 1, ratelimit.WithWait(-1)); return err }, redisson.ErrInvalidArgument},
		{"above the rate", func() error { return l.Acquire(ctx, 4) }, ratelimit.ErrExceedsRate},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.ErrorIs(t, tc.run(), tc.want)
			require.Equal(t, before, raw.HGetAll(ctx, "bad").Val())
			require.Equal(t, []string{"bad"}, redistest.Keys(t, raw, "*"))
		})
	}

	require.NoError(t, raw.Set(ctx, "str", "x", 0).Err())
	s := redissontest.ClientAt(t, srv.Addr()).RateLimiter("str")
	_, err = s.TryAcquire(ctx, 1)
	require.ErrorIs(t, err, redisson.ErrWrongType)
	_, err = s.TrySetRate(ctx, ratelimit.Overall, 1, time.Second)
	require.ErrorIs(t, err, redisson.ErrWrongType)
	require.Equal(t, "x", rawValue(t, raw, "str"))
}
