package redissonotel_test

import (
	"context"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/codec"
	"github.com/goredisson/redisson/extra/redissonotel"
	"github.com/goredisson/redisson/localcache"
	"github.com/goredisson/redisson/observe"
)

var (
	kindLCM     = redissonotel.KeyKind.String("local_cached_map")
	causeInval  = redissonotel.KeyCacheCause.String("invalidate")
	causeUpdate = redissonotel.KeyCacheCause.String("update")
	causeClear  = redissonotel.KeyCacheCause.String("clear")
)

// Hits, misses, invalidations and the size from two maps' Stats, and the
// observer's events by cause, with the names mapped.
func TestLocalCacheMetrics(t *testing.T) {
	e := newEnv(t, redissonotel.WithNameMapping(func(kind observe.Kind, name string) string {
		if kind != redissonotel.KindLocalCachedMap {
			return ""
		}
		prefix, _, _ := strings.Cut(name, ":")
		return prefix
	}))
	ctx := t.Context()
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	t.Cleanup(func() { _ = mp.Shutdown(context.Background()) })
	lc, err := redissonotel.NewLocalCacheMetrics(redissonotel.WithMeterProvider(mp),
		redissonotel.WithNameMapping(func(_ observe.Kind, name string) string { n, _, _ := strings.Cut(name, ":"); return n }))
	must(t, err)
	t.Cleanup(func() { _ = lc.Close() })
	collect := func() metricdata.ResourceMetrics {
		var rm metricdata.ResourceMetrics
		must(t, reader.Collect(ctx, &rm))
		return rm
	}

	other := e.newClient()
	reader1 := redisson.NewLocalCachedMap[string, string](e.client, "prices:eu", codec.String(), localcache.Options{})
	writer := redisson.NewLocalCachedMap[string, string](other, "prices:eu", codec.String(), localcache.Options{})
	upd := redisson.NewLocalCachedMap[string, string](e.client, "stock:1", codec.String(), localcache.Options{Sync: localcache.SyncUpdate})
	updWriter := redisson.NewLocalCachedMap[string, string](other, "stock:1", codec.String(), localcache.Options{Sync: localcache.SyncUpdate})
	for _, m := range []*localcache.LocalCachedMap[string, string]{reader1, writer, upd, updWriter} {
		t.Cleanup(func() { _ = m.Close() })
		must(t, m.Start(ctx))
	}
	removeReader := lc.Add(reader1)
	lc.Add(upd)

	_, _, err = writer.Put(ctx, "tea", "3.50")
	must(t, err)
	// Its invalidation first: one arriving while a miss reads would stop
	// that miss from filling the near cache.
	eventually(t, "reader1 heard the put", func() bool { return reader1.Stats().Messages == 1 })
	for range 3 {
		_, _, err = reader1.Get(ctx, "tea") // a miss, then two hits
		must(t, err)
	}
	_, _, err = reader1.Get(ctx, "nope") // a miss
	must(t, err)
	_, _, err = writer.Put(ctx, "tea", "3.60") // drops reader1's entry
	must(t, err)
	eventually(t, "reader1 invalidated", func() bool { return reader1.Stats().Invalidations == 1 })
	_, _, err = updWriter.Put(ctx, "nuts", "7") // stored in upd's near cache
	must(t, err)
	eventually(t, "upd updated", func() bool { return upd.CachedSize() == 1 })
	must(t, writer.ClearLocalCache(ctx)) // returns once reader1 cleared

	eu := attribute.NewSet(kindLCM, redissonotel.KeyName.String("prices"))
	stock := attribute.NewSet(kindLCM, redissonotel.KeyName.String("stock"))
	rm := collect()
	equal(t, "hits", sum(t, rm, "redisson.localcache.hits", eu.ToSlice()...), 2)
	equal(t, "misses", sum(t, rm, "redisson.localcache.misses", eu.ToSlice()...), 2)
	equal(t, "invalidations", sum(t, rm, "redisson.localcache.invalidations", eu.ToSlice()...), 1)
	equal(t, "size, cleared", sum(t, rm, "redisson.localcache.size", eu.ToSlice()...), 0)
	equal(t, "size, updated", sum(t, rm, "redisson.localcache.size", stock.ToSlice()...), 1)

	ev := e.metrics()
	withCause := func(set attribute.Set, cause attribute.KeyValue) []attribute.KeyValue {
		return append(set.ToSlice(), cause)
	}
	// Two invalidations reached reader1 (the first dropped nothing: the
	// entry was not cached yet), one clear.
	equal(t, "invalidate events", sum(t, ev, "redisson.localcache.events", withCause(eu, causeInval)...), 2)
	equal(t, "invalidated entries", sum(t, ev, "redisson.localcache.entries.changed", withCause(eu, causeInval)...), 1)
	equal(t, "clear events", sum(t, ev, "redisson.localcache.events", withCause(eu, causeClear)...), 1)
	equal(t, "update events", sum(t, ev, "redisson.localcache.events", withCause(stock, causeUpdate)...), 1)
	equal(t, "updated entries", sum(t, ev, "redisson.localcache.entries.changed", withCause(stock, causeUpdate)...), 1)

	removeReader()
	rm = collect()
	equal(t, "a removed map is no longer exported", sum(t, rm, "redisson.localcache.hits", eu.ToSlice()...), 0)
}
