package redissonotel

import (
	"context"
	"errors"
	"sync"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/localcache"
	"github.com/goredisson/redisson/observe"
)

// KindLocalCachedMap is the redisson.object.kind of the local cached map's
// metrics, and the kind WithNameMapping is given for its names.
const KindLocalCachedMap observe.Kind = "local_cached_map"

// KeyCacheCause is the cause of a near cache's change (observe.LocalCacheCause:
// invalidate, update, clear, gap, garbled, disable).
const KeyCacheCause = attribute.Key("redisson.localcache.cause")

// cacheEvents are the instruments of the observer's LocalCache events.
type cacheEvents struct {
	events, entries metric.Int64Counter
}

func (r *recorder) cacheInstruments(counter func(name, unit, desc string) metric.Int64Counter) {
	r.cache.events = counter("redisson.localcache.events", "{event}",
		"Messages from other instances (and lost subscriptions) that reached a local cached map's near cache, by cause.")
	r.cache.entries = counter("redisson.localcache.entries.changed", "{entry}",
		"Near-cache entries those events dropped (or, for update, stored), by cause.")
}

func (r *recorder) localCache(e observe.LocalCache) {
	ctx := context.Background()
	set := r.attrs(KindLocalCachedMap, e.Name, KeyCacheCause.String(string(e.Cause)))
	r.cache.events.Add(ctx, 1, set)
	r.cache.entries.Add(ctx, int64(e.Entries), set)
}

// NearCache is what LocalCacheMetrics reads of a local cached map: any
// *localcache.LocalCachedMap[K, V].
type NearCache interface {
	Name() string
	Stats() localcache.Stats
	CachedSize() int
}

// LocalCacheMetrics exports the near-cache counters of the local cached
// maps added to it (LocalCachedMap.Stats, read when the metrics are
// collected, so a hit costs nothing more):
//
//	redisson.localcache.hits           reads the near cache answered
//	redisson.localcache.misses         reads it did not
//	redisson.localcache.invalidations  entries other instances' messages dropped
//	redisson.localcache.size           entries held now
//
// The observer's LocalCache events (NewObserver) count the messages by
// cause beside them. Maps whose names map to the same attributes
// (WithNameMapping; none without it) are summed.
type LocalCacheMetrics struct {
	cfg                         config
	hits, misses, invalidations metric.Int64ObservableCounter
	size                        metric.Int64ObservableUpDownCounter
	reg                         metric.Registration
	mu                          sync.Mutex
	maps                        map[*nearCache]struct{}
}

type nearCache struct{ m NearCache }

// NewLocalCacheMetrics makes the instruments of LocalCacheMetrics on the
// MeterProvider of opts (WithMeterProvider, default the global one), with
// WithNameMapping's names; it exports nothing until a map is added.
func NewLocalCacheMetrics(opts ...Option) (*LocalCacheMetrics, error) {
	c := config{}
	for _, opt := range opts {
		opt(&c)
	}
	if c.mp == nil {
		c.mp = otel.GetMeterProvider()
	}
	m := c.mp.Meter(ScopeName, metric.WithInstrumentationVersion(redisson.Version))
	l := &LocalCacheMetrics{cfg: c, maps: map[*nearCache]struct{}{}}
	var err, e error
	l.hits, e = m.Int64ObservableCounter("redisson.localcache.hits", metric.WithUnit("{read}"),
		metric.WithDescription("Reads of a local cached map that its near cache answered."))
	err = errors.Join(err, e)
	l.misses, e = m.Int64ObservableCounter("redisson.localcache.misses", metric.WithUnit("{read}"),
		metric.WithDescription("Reads of a local cached map that its near cache did not answer."))
	err = errors.Join(err, e)
	l.invalidations, e = m.Int64ObservableCounter("redisson.localcache.invalidations", metric.WithUnit("{entry}"),
		metric.WithDescription("Near-cache entries that other instances' messages (or a lost subscription) dropped."))
	err = errors.Join(err, e)
	l.size, e = m.Int64ObservableUpDownCounter("redisson.localcache.size", metric.WithUnit("{entry}"),
		metric.WithDescription("Entries the near caches hold."))
	if err = errors.Join(err, e); err != nil {
		return nil, err
	}
	l.reg, err = m.RegisterCallback(l.observe, l.hits, l.misses, l.invalidations, l.size)
	if err != nil {
		return nil, err
	}
	return l, nil
}

// Add exports m's counters until the returned function is called (call
// it when m is closed).
func (l *LocalCacheMetrics) Add(m NearCache) (remove func()) {
	n := &nearCache{m}
	l.mu.Lock()
	l.maps[n] = struct{}{}
	l.mu.Unlock()
	return func() {
		l.mu.Lock()
		delete(l.maps, n)
		l.mu.Unlock()
	}
}

// Close stops exporting; the instruments report nothing more.
func (l *LocalCacheMetrics) Close() error { return l.reg.Unregister() }

type cacheSums struct {
	set                         attribute.Set
	hits, misses, invalidations int64
	size                        int64
}

func (l *LocalCacheMetrics) observe(_ context.Context, o metric.Observer) error {
	sums := map[attribute.Distinct]*cacheSums{}
	var order []*cacheSums
	l.mu.Lock()
	for n := range l.maps {
		st := n.m.Stats()
		kv := []attribute.KeyValue{KeyKind.String(string(KindLocalCachedMap))}
		if l.cfg.mapName != nil {
			if name := l.cfg.mapName(KindLocalCachedMap, n.m.Name()); name != "" {
				kv = append(kv, KeyName.String(name))
			}
		}
		set := attribute.NewSet(kv...)
		s := sums[set.Equivalent()]
		if s == nil {
			s = &cacheSums{set: set}
			sums[set.Equivalent()] = s
			order = append(order, s)
		}
		s.hits += int64(st.Hits)
		s.misses += int64(st.Misses)
		s.invalidations += int64(st.Invalidations)
		s.size += int64(n.m.CachedSize())
	}
	l.mu.Unlock()
	for _, s := range order {
		opt := metric.WithAttributeSet(s.set)
		o.ObserveInt64(l.hits, s.hits, opt)
		o.ObserveInt64(l.misses, s.misses, opt)
		o.ObserveInt64(l.invalidations, s.invalidations, opt)
		o.ObserveInt64(l.size, s.size, opt)
	}
	return nil
}
