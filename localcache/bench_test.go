package localcache_test

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/codec"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/localcache"
)

// A hit in the steady state allocates nothing, for each eviction policy
// and with TTL and max idle (the clock is read then).
func TestHitAllocatesNothing(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	for _, tc := range []struct {
		name string
		o    localcache.Options
	}{
		{"none", localcache.Options{}},
		{"lru", localcache.Options{Eviction: localcache.EvictionLRU, CacheSize: 100}},
		{"lfu", localcache.Options{Eviction: localcache.EvictionLFU, CacheSize: 100}},
		{"ttl and idle", localcache.Options{TTL: 1 << 40, MaxIdle: 1 << 40}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := newMap(t, e.c1, "allocs:"+tc.name, tc.o)
			for i := range 10 {
				_, err := m.FastPut(ctx, "k"+strconv.Itoa(i), "v")
				require.NoError(t, err)
			}
			hits := m.Stats().Hits
			allocs := testing.AllocsPerRun(1000, func() {
				if _, ok, err := m.Get(ctx, "k3"); !ok || err != nil {
					t.Fatal("not a hit")
				}
			})
			require.Zero(t, allocs)
			require.Equal(t, hits+1001, m.Stats().Hits)
		})
	}
}

// BenchmarkGetHit is a read the near cache answers: no round trip, no
// allocation (0 allocs/op).
func BenchmarkGetHit(b *testing.B) {
	for _, tc := range []struct {
		name string
		o    localcache.Options
	}{
		{"none", localcache.Options{}},
		{"lru", localcache.Options{Eviction: localcache.EvictionLRU, CacheSize: 1000}},
		{"lfu", localcache.Options{Eviction: localcache.EvictionLFU, CacheSize: 1000}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			e := newBenchEnv(b)
			ctx := b.Context()
			m := localcache.New[string, string](e.Source(), "bench:"+tc.name, stringCodec(), tc.o)
			defer m.Close()
			keys := make([]string, 100)
			for i := range keys {
				keys[i] = "k" + strconv.Itoa(i)
				if _, err := m.FastPut(ctx, keys[i], "v"); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				if _, ok, err := m.Get(ctx, keys[i%len(keys)]); !ok || err != nil {
					b.Fatal("not a hit")
				}
			}
		})
	}
}

func newBenchEnv(b *testing.B) *redisson.Client {
	b.Helper()
	srv := redistest.StartServer(b)
	c, err := redisson.New(redistest.Client(b, srv))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = c.Close() })
	return c
}

func stringCodec() codec.Codec { return codec.String() }

// BenchmarkGetRedis is the same read without a near cache (CacheSize -1):
// an HGET round trip, what a hit saves.
func BenchmarkGetRedis(b *testing.B) {
	e := newBenchEnv(b)
	ctx := b.Context()
	m := localcache.New[string, string](e.Source(), "bench:redis", stringCodec(), localcache.Options{CacheSize: -1})
	defer m.Close()
	if _, err := m.FastPut(ctx, "k", "v"); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, ok, err := m.Get(ctx, "k"); !ok || err != nil {
			b.Fatal("no value")
		}
	}
}
