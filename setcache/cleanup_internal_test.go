package setcache

import (
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/internal/handle"
	"github.com/goredisson/redisson/internal/objbase"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/source"
)

func newRuntime(t *testing.T, srv *redistest.Server) *core.Runtime {
	t.Helper()
	rt := core.New(core.Config{Redis: redistest.Client(t, srv), ID: uuid.NewString()})
	t.Cleanup(rt.Close)
	return rt
}

// Two clients' runs of the clean-up share the work through Redis' run-once
// latch: while one client's latch is held the other's run skips (-1) and
// touches nothing; once it has expired, the other's run does the work. A
// run removes at most limit members, soonest expired first.
func TestCleanUpLatch(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	ctx := t.Context()
	one, two := cleanUp(newRuntime(t, srv), "sc"), cleanUp(newRuntime(t, srv), "sc")
	now := time.Now().UnixMilli()
	for i, m := range []string{"a", "b", "c"} {
		require.NoError(t, raw.ZAdd(ctx, "sc", redis.Z{Score: float64(now - 3000 + int64(i)), Member: m}).Err())
	}
	require.NoError(t, raw.ZAdd(ctx, "sc", redis.Z{Score: float64(NoExpiry), Member: "live"}).Err())

	n, err := one(ctx, 2, time.Second)
	require.NoError(t, err)
	require.Equal(t, 2, n)
	require.Equal(t, []string{"c", "live"}, raw.ZRange(ctx, "sc", 0, -1).Val())
	ttl := raw.PTTL(ctx, TaskLatch("sc")).Val()
	require.Greater(t, ttl, time.Duration(0))
	require.LessOrEqual(t, ttl, time.Second, "the latch lasts the run's delay")

	n, err = two(ctx, 100, time.Second)
	require.NoError(t, err)
	require.Equal(t, -1, n, "the other client's run holds the latch")
	require.Equal(t, []string{"c", "live"}, raw.ZRange(ctx, "sc", 0, -1).Val())

	redistest.Eventually(t, 5*time.Second, "the latch expired", func() bool {
		return raw.Exists(ctx, TaskLatch("sc")).Val() == 0
	})
	n, err = two(ctx, 100, time.Second)
	require.NoError(t, err)
	require.Equal(t, 1, n)
	require.Equal(t, []string{"live"}, raw.ZRange(ctx, "sc", 0, -1).Val())
}

// A handle schedules the client's clean-up of its name; Delete stops it
// and the next write starts it again.
func TestScheduleAndDelete(t *testing.T) {
	srv := redistest.StartServer(t)
	rt := newRuntime(t, srv)
	src := (*source.Source)(handle.New(rt, nil))
	s := &SetCache[string]{src: src, base: objbase.New(objbase.Kind{Name: kind, Type: "zset"}, src, "sc")}
	s.schedule()
	require.True(t, rt.Eviction().Scheduled("sc"))
	_, err := s.Delete(t.Context())
	require.NoError(t, err)
	require.False(t, rt.Eviction().Scheduled("sc"))
}
