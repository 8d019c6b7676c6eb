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
	b, err := redisson.New(rdbB)
	if err != nil {
		return err
	}
	defer b.Close()
	for round := 1; round <= max(r.cfg.Rounds, 1); round++ {
		if err := r.localHit(ctx, a, round); err != nil {
			return fmt.Errorf("local hit: %w", err)
		}
		if err := r.localInvalidation(ctx, a, b, round); err != nil {
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

// localInvalidation times, per Put on a, how long until b's near cache no
// longer holds the entry (b polls its own cache size, no Redis call), then
// refills b's cache for the next sample.
func (r *Runner) localInvalidation(ctx context.Context, a, b *redisson.Client, round int) error {
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
		if _, err := la.FastPut(ctx, "k", fmt.Sprint(i)); err != nil {
			return err
		}
		deadline := time.Now().Add(5 * time.Second)
		for lb.CachedSize() == 0 { // a fill racing the previous message is dropped: get again
			if time.Now().After(deadline) {
				return fmt.Errorf("sample %d: b's cache stayed empty", i)
			}
			if _, _, err := lb.Get(ctx, "k"); err != nil {
				return err
			}
		}
		start := time.Now()
		if _, err := la.FastPut(ctx, "k", fmt.Sprint(i)+"x"); err != nil {
			return err
		}
		for lb.CachedSize() != 0 {
			if time.Now().After(deadline) {
				return fmt.Errorf("sample %d: no invalidation within 5 s", i)
			}
			runtime.Gosched()
		}
		lat = append(lat, float64(time.Since(start).Microseconds())/1000)
	}
	slices.Sort(lat)
	p := func(q float64) float64 { return lat[min(len(lat)-1, int(q*float64(len(lat))))] }
	r.report.add(grpCache, scLocalInv, "p50 ms (Put sent → b's entry dropped)", libCacheOurs, lower, p(0.50))
	r.report.add(grpCache, scLocalInv, "p99 ms (Put sent → b's entry dropped)", libCacheOurs, lower, p(0.99))
	r.logf("caches        round %d invalidation p50 %.3f ms p99 %.3f ms max %.3f ms over %d puts", round, p(0.5), p(0.99), lat[len(lat)-1], len(lat))
	return nil
}
