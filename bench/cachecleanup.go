package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/mapcache"
)

// The map cache's clean-up row: N entries with a short TTL, then one run
// of the clean-up task (Redisson's eviction script, run by a client whose
// first run comes a second after the handle is made and whose keys limit
// is N, so one run removes them all; the first run is the one timed). The script's time in Redis comes
// from SLOWLOG (threshold 0 during the row, restored after), divided by N.

const scCleanUp = "map cache clean-up: one run of Redisson's eviction script over N expired entries"

// cleanUpSizes are the N of the row (tiny runs use the first only).
var cleanUpSizes = []int{1000, 10000}

// cacheCleanUp measures each size once per round.
func (r *Runner) cacheCleanUp(ctx context.Context) error {
	rdb := redis.NewClient(&redis.Options{Addr: r.cfg.Addr})
	defer rdb.Close()
	restore, err := slowlogAll(ctx, rdb)
	if err != nil {
		return err
	}
	defer restore()
	sizes := cleanUpSizes
	if r.cfg.Ops > 0 {
		sizes = []int{min(r.cfg.Ops, cleanUpSizes[0])}
	}
	for round := 1; round <= max(r.cfg.Rounds, 1); round++ {
		for _, n := range sizes {
			key := r.key(fmt.Sprintf("cacl%d", n), libCacheOurs)
			us, err := cleanUpRun(ctx, rdb, key, n)
			if err != nil {
				return fmt.Errorf("clean-up of %d: %w", n, err)
			}
			sc := fmt.Sprintf("%s, N = %d", scCleanUp, n)
			r.report.add(grpCache, sc, "server µs per expired entry (SLOWLOG)", libCacheOurs, lower, us/float64(n))
			r.report.add(grpCache, sc, "server ms per run (SLOWLOG)", libCacheOurs, lower, us/1000)
			r.logf("caches        round %d clean-up N=%-6d %8.0f µs in Redis, %.2f µs per entry", round, n, us, us/float64(n))
		}
	}
	return nil
}

// slowlogAll logs every command until restore puts the settings back.
func slowlogAll(ctx context.Context, rdb *redis.Client) (func(), error) {
	old, err := rdb.ConfigGet(ctx, "slowlog-*").Result()
	if err != nil {
		return nil, err
	}
	if err := rdb.ConfigSet(ctx, "slowlog-log-slower-than", "0").Err(); err != nil {
		return nil, err
	}
	if err := rdb.ConfigSet(ctx, "slowlog-max-len", "4096").Err(); err != nil {
		return nil, err
	}
	return func() {
		for k, v := range old {
			rdb.ConfigSet(context.Background(), k, v)
		}
	}, nil
}

// cleanUpRun fills key with n entries of TTL 1 ms from one client, then
// lets a second client's clean-up run once and returns that run's time in
// Redis in µs.
func cleanUpRun(ctx context.Context, rdb *redis.Client, key string, n int) (float64, error) {
	latch := "redisson__execute_task_once_latch:{" + key + "}"
	if err := rdb.Del(ctx, key, "redisson__timeout__set:{"+key+"}", latch).Err(); err != nil {
		return 0, err
	}
	if err := cleanUpFill(ctx, rdb, key, n); err != nil {
		return 0, err
	}
	if err := rdb.SlowLogReset(ctx).Err(); err != nil {
		return 0, err
	}
	c, err := redisson.New(rdb, redisson.WithCleanUp(redisson.CleanUpOptions{MinDelay: time.Second, KeysAmount: n}))
	if err != nil {
		return 0, err
	}
	defer c.Close()
	redisson.NewMapCache[string, string](c, key, cacheCodec())
	deadline := time.Now().Add(30 * time.Second)
	for {
		left, err := rdb.HLen(ctx, key).Result()
		if err != nil {
			return 0, err
		}
		if left == 0 {
			break
		}
		if time.Now().After(deadline) {
			return 0, fmt.Errorf("%d entries left after 30 s", left)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return evictRunMicros(ctx, rdb, latch)
}

// cleanUpFill stores n entries with a 1 ms TTL through a client whose own
// clean-up would come only after the row.
func cleanUpFill(ctx context.Context, rdb *redis.Client, key string, n int) error {
	c, err := redisson.New(rdb, redisson.WithCleanUp(redisson.CleanUpOptions{MinDelay: time.Hour, MaxDelay: time.Hour}))
	if err != nil {
		return err
	}
	defer c.Close()
	m := redisson.NewMapCache[string, string](c, key, cacheCodec())
	const workers = 8
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := w; i < n && errs[w] == nil; i += workers {
				_, errs[w] = m.FastPut(ctx, fmt.Sprintf("k%d", i), "v", mapcache.WithTTL(time.Millisecond))
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// evictRunMicros finds the first run of the eviction script (the oldest
// entry naming the latch) in SLOWLOG; later runs found nothing left.
func evictRunMicros(ctx context.Context, rdb *redis.Client, latch string) (float64, error) {
	logs, err := rdb.SlowLogGet(ctx, -1).Result()
	if err != nil {
		return 0, err
	}
	first := -1
	for i, l := range logs {
		if len(l.Args) > 0 && strings.HasPrefix(strings.ToLower(l.Args[0]), "eval") && strings.Contains(strings.Join(l.Args, " "), latch) {
			if first < 0 || l.ID < logs[first].ID {
				first = i
			}
		}
	}
	if first < 0 {
		return 0, errors.New("no clean-up run in SLOWLOG")
	}
	return float64(logs[first].Duration.Microseconds()), nil
}
