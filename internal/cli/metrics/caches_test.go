package metrics_test

import (
	"strings"
	"testing"
	"time"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/codec"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/mapcache"
)

// TestMetricsCaches: the figures of caches, counters and probabilistic
// objects are series of their own, and no waiters are claimed for them.
func TestMetricsCaches(t *testing.T) {
	t.Parallel()
	s := redistest.StartServer(t)
	rdb := redistest.Client(t, s)
	c, err := redisson.New(rdb)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	ctx := t.Context()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	m := redisson.NewMapCache[string, string](c, "m:mc", codec.String())
	must(m.SetMaxSize(ctx, 5, mapcache.LFU))
	_, err = m.FastPut(ctx, "a", "1", mapcache.WithTTL(time.Hour))
	must(err)
	_, err = m.FastPut(ctx, "b", "2")
	must(err)
	_, err = redisson.NewSetCache[string](c, "m:sc", codec.String()).AddTTL(ctx, "x", time.Hour)
	must(err)
	_, err = redisson.NewHyperLogLog[string](c, "m:hll", codec.String()).AddAll(ctx, "a", "b")
	must(err)
	must(c.AtomicDouble("m:ad").Set(ctx, 2.25))
	_, err = c.IdGenerator("m:ids").TryInit(ctx, 7, 100)
	must(err)
	out := write(t, rdb)
	for _, bad := range checkExposition(out) {
		t.Error(bad)
	}
	for _, want := range []string{
		`redisson_cache_entries{name="m:mc",kind="map cache"} 2`,
		`redisson_cache_entries_with_ttl{name="m:mc",kind="map cache"} 1`,
		`redisson_cache_max_size{name="m:mc",kind="map cache"} 5`,
		`redisson_cache_expired_uncleaned{name="m:mc",kind="map cache"} 0`,
		`redisson_cache_entries_with_ttl{name="m:sc",kind="set cache"} 1`,
		`redisson_hyperloglog_estimate{name="m:hll",kind="hyperloglog"} 2`,
		`redisson_atomic_double_value{name="m:ad",kind="atomicdouble"} 2.25`,
		`redisson_integer_value{name="m:ids",kind="id generator"} 7`,
		`redisson_id_generator_block{name="m:ids",kind="id generator"} 100`,
		`redisson_objects{kind="map cache"} 1`,
	} {
		if !strings.Contains(out, want+"\n") {
			t.Errorf("lacks %s", want)
		}
	}
	if strings.Contains(out, `redisson_waiters{name="m:mc"`) {
		t.Error("waiters claimed for a map cache")
	}
	if t.Failed() {
		t.Log(out)
	}
}
