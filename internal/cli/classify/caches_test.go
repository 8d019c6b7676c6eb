package classify_test

import (
	"context"
	"encoding/json"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/codec"
	"github.com/goredisson/redisson/internal/cli/classify"
	"github.com/goredisson/redisson/internal/cli/inspect"
	"github.com/goredisson/redisson/internal/cli/ls"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/mapcache"
)

// cacheCase is a cache, counter or probabilistic object, made by the
// library where main has it and otherwise with Redisson's layout by hand:
// the kind and state ls and inspect must give it, and the derived keys ls
// folds into its row. listed false: it has no key of its own, so only
// inspect finds it.
type cacheCase struct {
	name   string
	make   func(t *testing.T, c *redisson.Client, rdb *redis.Client)
	kind   string
	state  string
	keys   []string
	listed bool
}

// expiredMs is an expiry time an hour past.
func expiredMs() float64 { return float64(time.Now().Add(-time.Hour).UnixMilli()) }

var cacheCases = []cacheCase{
	{"mc", func(t *testing.T, c *redisson.Client, _ *redis.Client) {
		m := redisson.NewMapCache[string, string](c, "mc", codec.String())
		must(t, m.SetMaxSize(t.Context(), 10, mapcache.LRU))
		for k, o := range map[string][]mapcache.EntryOption{
			"plain": nil, "ttl": {mapcache.WithTTL(time.Hour)}, "idle": {mapcache.WithMaxIdle(time.Hour)},
		} {
			_, err := m.FastPut(t.Context(), k, "v", o...)
			must(t, err)
		}
	}, classify.MapCache, "3 entries, 1 with TTL, 1 with max idle, max size 10 LRU",
		[]string{"mc", "redisson__timeout__set:{mc}", "redisson__idle__set:{mc}", "{mc}:redisson_options",
			"redisson__map_cache__last_access__set:{mc}"}, true},
	// Without TTLs, size limit or listeners a map cache is its hash alone:
	// its packed values say what it is.
	{"mc-plain", func(t *testing.T, c *redisson.Client, _ *redis.Client) {
		_, err := redisson.NewMapCache[string, string](c, "mc-plain", codec.String()).FastPut(t.Context(), "k", "v")
		must(t, err)
	}, classify.MapCache, "1 entries, 0 with TTL, 0 with max idle", []string{"mc-plain"}, true},
	// An entry past its TTL that no clean-up removed yet.
	{"mc-expired", func(t *testing.T, _ *redisson.Client, rdb *redis.Client) {
		ctx := context.Background()
		packed := "\x00\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00" + "1"
		must(t, rdb.HSet(ctx, "mc-expired", "a", packed).Err())
		must(t, rdb.ZAdd(ctx, "redisson__timeout__set:{mc-expired}", redis.Z{Score: expiredMs(), Member: "a"}).Err())
	}, classify.MapCache, "1 entries, 1 with TTL, 0 with max idle, 1 expired not cleaned",
		[]string{"mc-expired", "redisson__timeout__set:{mc-expired}"}, true},
	{"sc", func(t *testing.T, c *redisson.Client, _ *redis.Client) {
		s := redisson.NewSetCache[string](c, "sc", codec.String())
		_, err := s.Add(t.Context(), "forever")
		must(t, err)
		_, err = s.AddTTL(t.Context(), "hour", time.Hour)
		must(t, err)
	}, classify.SetCache, "2 members, 1 with TTL", []string{"sc"}, true},
	{"sc-expired", func(t *testing.T, _ *redisson.Client, rdb *redis.Client) {
		must(t, rdb.ZAdd(context.Background(), "sc-expired", redis.Z{Score: expiredMs(), Member: "old"},
			redis.Z{Score: 92233720368547758, Member: "forever"}).Err())
	}, classify.SetCache, "2 members, 1 with TTL, 1 expired not cleaned", []string{"sc-expired"}, true},
	// Scores that are no expiry times: a plain zset.
	{"zset-scores", func(t *testing.T, _ *redisson.Client, rdb *redis.Client) {
		must(t, rdb.ZAdd(context.Background(), "zset-scores", redis.Z{Score: 1, Member: "a"}, redis.Z{Score: 2, Member: "b"}).Err())
	}, classify.Unknown("zset"), "Redis zset", []string{"zset-scores"}, true},
	// A hash with near caches subscribed to its topic.
	{"lcm", func(t *testing.T, _ *redisson.Client, rdb *redis.Client) {
		must(t, rdb.HSet(context.Background(), "lcm", "k1", "v1", "k2", "v2").Err())
		subscribe(t, rdb, "{lcm}:topic")
		subscribe(t, rdb, "{lcm}:topic")
	}, classify.LocalCachedMap, "2 entries, 2 near cache(s)", []string{"lcm"}, true},
	// With no near cache now, its updates log (reconnection strategy
	// LOAD) still says what it is.
	{"lcm-log", func(t *testing.T, _ *redisson.Client, rdb *redis.Client) {
		ctx := context.Background()
		must(t, rdb.HSet(ctx, "lcm-log", "k1", "v1").Err())
		must(t, rdb.ZAdd(ctx, "redisson__cache_updates_log:{lcm-log}", redis.Z{Score: float64(time.Now().UnixMilli()), Member: "entry"}).Err())
	}, classify.LocalCachedMap, "1 entries, 0 near cache(s)", []string{"lcm-log", "redisson__cache_updates_log:{lcm-log}"}, true},
	{"ad", func(t *testing.T, c *redisson.Client, _ *redis.Client) {
		must(t, c.AtomicDouble("ad").Set(t.Context(), 1.5))
	}, classify.AtomicDouble, "value 1.5", []string{"ad"}, true},
	{"ids", func(t *testing.T, c *redisson.Client, _ *redis.Client) {
		_, err := c.IdGenerator("ids").TryInit(t.Context(), 100, 50)
		must(t, err)
	}, classify.IDGenerator, "next id 100, block 50", []string{"ids", "{ids}:allocation"}, true},
	{"bf", func(t *testing.T, _ *redisson.Client, rdb *redis.Client) {
		ctx := context.Background()
		must(t, rdb.HSet(ctx, "{bf}:config", "size", "958", "hashIterations", "7", "expectedInsertions", "100", "falseProbability", "0.01").Err())
		must(t, rdb.SetBit(ctx, "bf", 100, 1).Err())
	}, classify.BloomFilter, "958 bits, 7 hashes, 100 expected insertions", []string{"bf", "{bf}:config"}, true},
	{"hll", func(t *testing.T, c *redisson.Client, _ *redis.Client) {
		_, err := redisson.NewHyperLogLog[string](c, "hll", codec.String()).AddAll(t.Context(), "a", "b", "c")
		must(t, err)
	}, classify.HyperLogLog, "estimate 3", []string{"hll"}, true},
	// A bit set is a string of bits: Redis cannot tell it from a bucket.
	{"bits", func(t *testing.T, c *redisson.Client, _ *redis.Client) {
		_, err := c.BitSet("bits").Set(t.Context(), 5, true)
		must(t, err)
	}, classify.Bucket, "1 bytes", []string{"bits"}, true},
	// An adder keeps no key: its instances subscribe to its topic.
	{"adder", func(t *testing.T, _ *redisson.Client, rdb *redis.Client) {
		subscribe(t, rdb, "{adder}:adder-topic")
	}, classify.Adder, "1 instance(s)", nil, false},
}

// TestCacheKinds: ls and inspect classify each cache, counter and
// probabilistic object alike, fold its derived keys into its row, and
// show its figures.
func TestCacheKinds(t *testing.T) {
	s := redistest.StartServer(t)
	rdb := redistest.Client(t, s)
	client, err := redisson.New(rdb)
	must(t, err)
	t.Cleanup(func() { client.Close() })
	for _, tc := range cacheCases {
		tc.make(t, client, rdb)
	}
	ctx := context.Background()
	res, err := ls.List(ctx, rdb, ls.Options{Pattern: "*", MaxKeys: 10000, ScanCount: 1000})
	must(t, err)
	listed := map[string]ls.Object{}
	for _, o := range res.Objects {
		listed[o.Name] = o
	}
	for _, tc := range cacheCases {
		t.Run(tc.name, func(t *testing.T) {
			o, ok := listed[tc.name]
			switch {
			case ok != tc.listed:
				t.Errorf("ls lists it: %v, want %v (objects %v)", ok, tc.listed, listed)
			case ok && (o.Kind != tc.kind || o.State != tc.state || !includes(o.Keys, tc.keys) || len(o.Keys) != len(tc.keys)):
				t.Errorf("ls: kind %q state %q keys %v; want %q %q %v", o.Kind, o.State, o.Keys, tc.kind, tc.state, tc.keys)
			}
			rep, err := inspect.Inspect(ctx, rdb, tc.name)
			must(t, err)
			var keys []string
			for _, k := range rep.Keys {
				keys = append(keys, k.Key)
			}
			if rep.Kind != tc.kind || !includes(keys, tc.keys) {
				t.Errorf("inspect: kind %q keys %v, want %q %v", rep.Kind, keys, tc.kind, tc.keys)
			}
			if a, b := jsonOf(t, rep.Cache), jsonOf(t, o.Cache); tc.listed && a != b {
				t.Errorf("inspect's figures %s, ls's %s", a, b)
			}
		})
	}
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	must(t, err)
	return string(b)
}

// TestSetCacheRule: a zset is a set cache when every score is an expiry
// time in unix ms (ten years past to a hundred ahead) or Redisson's
// no-TTL score, and the sampled scores are whole.
func TestSetCacheRule(t *testing.T) {
	now := float64(time.Now().UnixMilli())
	for _, tc := range []struct {
		name string
		f    classify.Facts
		want bool
	}{
		{"timed and untimed", classify.Facts{ZCard: 3, ZTimed: 2, ZNoTTL: 1, ZSample: []float64{now, now + 1}}, true},
		{"all untimed", classify.Facts{ZCard: 2, ZNoTTL: 2, ZSample: []float64{92233720368547758}}, true},
		{"one score out of range", classify.Facts{ZCard: 3, ZTimed: 2, ZSample: []float64{now}}, false},
		{"fractional score", classify.Facts{ZCard: 1, ZTimed: 1, ZSample: []float64{now + 0.5}}, false},
		{"empty", classify.Facts{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.f.Type = "zset"
			for _, name := range []string{"plain", "redisson_delay_queue_timeout:{q}"} {
				kind, _ := classify.Of(name, tc.f)
				want := tc.want && name == "plain"
				if got := kind == classify.SetCache; got != want {
					t.Errorf("%s: kind %q, set cache wanted %v", name, kind, want)
				}
			}
		})
	}
	lo, hi := classify.SetCacheBounds(time.UnixMilli(int64(now)))
	l, _ := strconv.ParseFloat(lo, 64)
	h, _ := strconv.ParseFloat(hi, 64)
	if !(l < now && now < h && h < 92233720368547758) {
		t.Errorf("bounds %s..%s around %v", lo, hi, now)
	}
}
