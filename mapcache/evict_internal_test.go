package mapcache

import (
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson/codec"
	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/internal/eviction"
	"github.com/goredisson/redisson/internal/handle"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/source"
)

// newSource is a client's Source over its own runtime whose clean-up
// never runs by itself: the test runs the task.
func newSource(t *testing.T, srv *redistest.Server) *source.Source {
	rt := core.New(core.Config{Redis: redistest.Client(t, srv), ID: uuid.NewString(),
		CleanUp: eviction.Config{MinDelay: time.Hour, MaxDelay: time.Hour}})
	t.Cleanup(rt.Close)
	return (*source.Source)(handle.New(rt, nil))
}

// Two clients' runs of the clean-up share Redis' run-once latch: while one
// client's run holds it, the other's finds it taken and does nothing;
// after it lapses, the next run works again.
func TestCleanUpRunsOnceAcrossClients(t *testing.T) {
	srv := redistest.StartServer(t)
	rdb := redistest.Client(t, srv)
	ctx := t.Context()
	a := New[string, string](newSource(t, srv), "shared", codec.String())
	b := New[string, string](newSource(t, srv), "shared", codec.String())
	for _, k := range []string{"x", "y", "z"} {
		_, err := a.FastPut(ctx, k, k, WithTTL(time.Millisecond))
		require.NoError(t, err)
	}
	redistest.Eventually(t, 5*time.Second, "the entries expired", func() bool {
		live, err := a.ReadAll(ctx)
		return err == nil && len(live) == 0
	})

	n, err := a.evictTask()(ctx, 2, time.Second)
	require.NoError(t, err)
	assert.Equal(t, 2, n, "at most the limit")
	assert.Equal(t, int64(1), rdb.HLen(ctx, "shared").Val())
	ttl := rdb.PTTL(ctx, "redisson__execute_task_once_latch:{shared}").Val()
	assert.Greater(t, ttl, time.Duration(0))
	assert.LessOrEqual(t, ttl, time.Second)

	n, err = b.evictTask()(ctx, 100, time.Second)
	require.NoError(t, err)
	assert.Equal(t, -1, n, "the other client's run found the latch taken")
	assert.Equal(t, int64(1), rdb.HLen(ctx, "shared").Val())

	redistest.Eventually(t, 5*time.Second, "the latch lapsed", func() bool {
		return rdb.Exists(ctx, "redisson__execute_task_once_latch:{shared}").Val() == 0
	})
	n, err = b.evictTask()(ctx, 100, time.Second)
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	assert.Zero(t, rdb.Exists(ctx, "shared", "redisson__timeout__set:{shared}").Val())
}

// Each handle made schedules the name's clean-up once per client; Delete
// stops it.
func TestScheduledUntilDelete(t *testing.T) {
	srv := redistest.StartServer(t)
	src := newSource(t, srv)
	m := New[string, string](src, "sched", codec.String())
	rt := (*handle.Source)(src).Runtime()
	assert.True(t, rt.Eviction().Scheduled("sched"))
	_, err := m.Delete(t.Context())
	require.NoError(t, err)
	assert.False(t, rt.Eviction().Scheduled("sched"))
	New[string, string](src, "sched", codec.String())
	assert.True(t, rt.Eviction().Scheduled("sched"))
	New[string, string](src, "", codec.String())
	assert.False(t, rt.Eviction().Scheduled(""), "an invalid handle schedules nothing")
}
