package main

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/localcache"
	"github.com/goredisson/redisson/observe"
)

// The local cached map's rows, run in the runner process: a near-cache hit
// beside a plain map Get round trip (time and allocations per op), and the
// invalidation latency from one client's Put to the other client's near
// cache dropping the entry (INVALIDATE, Redisson's default).

const (
	scLocalHit = "local cached map Get answered by the near cache beside collection.Map Get (one round trip), 1 goroutine"
	scLocalInv = "local cached map invalidation: Put on client A → client B's near cache drops the entry (INVALIDATE)"
	// localInvSamples is how many puts the invalidation row times.
	localInvSamples = 500
)

func (r *Runner) cacheLocal(ctx context.Context) error {
	rdbA := redis.NewClient(&redis.Options{Addr: r.cfg.Addr})
	defer rdbA.Close()
	rdbB := redis.NewClient(&redis.Options{Addr: r.cfg.Addr})
	defer rdbB.Close()
	a, err := redisson.New(rdbA)
	if err != nil {
		return err
	}
	defer a.Close()
	// B's listener reports each drop as it happens: the invalidation row
	// waits on that instead of spinning, since a spinning reader takes a
	// CPU from the listener and redis-server and times its own contention.
	dropped := make(chan time.Time, 64)
	b, err := redisson.New(rdbB, redisson.WithObserver(&observe.Observer{LocalCache: func(e observe.LocalCache) {
		if e.Cause == observe.LocalCacheInvalidate && e.Entries > 0 {
			select {
			case dropped <- time.Now():
			default:
			}
		}
	}}))
	if err != nil {
		return err
	}
	defer b.Close()
	for round := 1; round <= max(r.cfg.Rounds, 1); round++ {
		if err := r.localHit(ctx, a, round); err != nil {
			return fmt.Errorf("local hit: %w", err)
		}
		if err := r.localInvalidation(ctx, rdbA, a, b, dropped, round); err != nil {
			return fmt.Errorf("local invalidation: %w", err)
		}
	}
	return nil
}

// perOp runs step for d (or ops times when ops > 0) and returns ns and
// allocations per op.
func perOp(d time.Duration, ops int, step func() error) (float64, float64, error) {
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	start, n := time.Now(), 0
	for ; (ops > 0 && n < ops) || (ops == 0 && (n%64 != 0 || time.Since(start) < d)); n++ {
		if err := step(); err != nil {
			return 0, 0, err
		}
	}
	el := time.Since(start)
	runtime.ReadMemStats(&m1)
	return float64(el.Nanoseconds()) / float64(n), float64(m1.Mallocs-m0.Mallocs) / float64(n), nil
}

func (r *Runner) localHit(ctx context.Context, c *redisson.Client, round int) error {
	key := r.key("calh", libCacheOurs)
	lcm := redisson.NewLocalCachedMap[string, string](c, key, cacheCodec(), localcache.Options{CacheSize: 1000})
	defer lcm.Close()
	if _, err := lcm.FastPut(ctx, "k", "v"); err != nil {
		return err
	}
	get := func(g func(context.Context, string) (string, bool, error)) func() error {
		return func() error {
			_, ok, err := g(ctx, "k")
			if err == nil && !ok {
				err = fmt.Errorf("get: absent")
			}
			return err
		}
	}
	if err := get(lcm.Get)(); err != nil { // fills the near cache
		return err
	}
	hitNs, hitAllocs, err := perOp(r.duration(r.cfg.Duration), r.cfg.Ops, get(lcm.Get))
	if err != nil {
		return err
	}
	m := redisson.NewMap[string, string](c, key, cacheCodec())
	getNs, getAllocs, err := perOp(r.duration(r.cfg.Duration), r.cfg.Ops, get(m.Get))
	if err != nil {
		return err
	}
	r.report.add(grpCache, scLocalHit, "ns per Get", "near-cache hit", lower, hitNs)
	r.report.add(grpCache, scLocalHit, "ns per Get", "map Get round trip", lower, getNs)
	r.report.add(grpCache, scLocalHit, "allocations per Get", "near-cache hit", lower, hitAllocs)
	r.report.add(grpCache, scLocalHit, "allocations per Get", "map Get round trip", lower, getAllocs)
	r.report.add(grpCache, scLocalHit, "round trip ÷ hit", "near-cache hit", higher, getNs/hitNs)
	r.logf("caches        round %d local hit %.0f ns (%.2f allocs), map Get %.0f ns (%.1f allocs): %.0f×",
		round, hitNs, hitAllocs, getNs, getAllocs, getNs/hitNs)
	return nil
}

// localInvalidation times, per Put on a, how long until b's near cache
// dropped the entry (the time b's listener reports the drop on dropped),
// then refills b's cache for the next sample.
func (r *Runner) localInvalidation(ctx context.Context, raw *redis.Client, a, b *redisson.Client, dropped <-chan time.Time, round int) error {
	key := r.key("cali", libCacheOurs)
	la := redisson.NewLocalCachedMap[string, string](a, key, cacheCodec(), localcache.Options{CacheSize: 1000})
	defer la.Close()
	lb := redisson.NewLocalCachedMap[string, string](b, key, cacheCodec(), localcache.Options{CacheSize: 1000})
	defer lb.Close()
	if err := la.Start(ctx); err != nil {
		return err
	}
	if err := lb.Start(ctx); err != nil {
		return err
	}
	samples := localInvSamples
	if r.cfg.Ops > 0 {
		samples = r.cfg.Ops
	}
	lat := make([]float64, 0, samples)
	for i := range samples {
		if err := refill(ctx, raw, key, lb, i); err != nil {
			return err
		}
		start := time.Now()
		if _, err := la.FastPut(ctx, "k", fmt.Sprint(i)+"x"); err != nil {
			return err
		}
		var at time.Time
		select {
		case at = <-dropped:
		case <-time.After(5 * time.Second):
			return fmt.Errorf("sample %d: no invalidation within 5 s", i)
		}
		if lb.CachedSize() != 0 {
			return fmt.Errorf("sample %d: b's entry reported dropped but still cached", i)
		}
		lat = append(lat, float64(at.Sub(start).Microseconds())/1000)
	}
	slices.Sort(lat)
	p := func(q float64) float64 { return lat[min(len(lat)-1, int(q*float64(len(lat))))] }
	r.report.add(grpCache, scLocalInv, "p50 ms (Put sent → b's entry dropped)", libCacheOurs, lower, p(0.50))
	r.report.add(grpCache, scLocalInv, "p99 ms (Put sent → b's entry dropped)", libCacheOurs, lower, p(0.99))
	r.logf("caches        round %d invalidation p50 %.3f ms p99 %.3f ms max %.3f ms over %d puts", round, p(0.5), p(0.99), lat[len(lat)-1], len(lat))
	return nil
}

// refill stores sample i's value with a plain HSET, which publishes
// nothing, and reads it into b's near cache: no message is in flight when
// the timed write starts.
func refill(ctx context.Context, raw *redis.Client, key string, lb *localcache.LocalCachedMap[string, string], i int) error {
	data, err := cacheCodec().Encode(fmt.Sprint(i))
	if err != nil {
		return err
	}
	if err := raw.HSet(ctx, key, "k", data).Err(); err != nil {
		return err
	}
	if _, _, err := lb.Get(ctx, "k"); err != nil {
		return err
	}
	if lb.CachedSize() != 1 {
		return fmt.Errorf("sample %d: b's near cache holds %d entries, want 1", i, lb.CachedSize())
	}
	return nil
}
