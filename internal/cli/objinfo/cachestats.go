package objinfo

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson/internal/cli/classify"
)

// CacheStats are the figures ls and inspect show of a cache, a counter or
// a probabilistic object; a field its kind has not is nil.
type CacheStats struct {
	// Entries: a map cache's, set cache's or local cached map's size.
	Entries *int64 `json:"entries"`
	// WithTTL, WithIdle: entries (members) with a time to live, with a
	// max idle time.
	WithTTL  *int64 `json:"with_ttl"`
	WithIdle *int64 `json:"with_idle"`
	// Expired: entries whose time to live passed and that no clean-up
	// removed yet (reads never return them); IdleExpired those idle too
	// long.
	Expired     *int64 `json:"expired"`
	IdleExpired *int64 `json:"idle_expired"`
	// MaxSize and EvictionMode: a map cache's size limit (0: none).
	MaxSize      *int64 `json:"max_size"`
	EvictionMode string `json:"eviction_mode"`
	// Listeners: subscribers of the object's own channels (a local cached
	// map's near caches, a cache's entry listeners, an adder's instances).
	Listeners int64 `json:"listeners"`
	// NextID and Block: an id generator's next id to allocate and the
	// size of the blocks clients take.
	NextID *int64 `json:"next_id"`
	Block  *int64 `json:"block"`
	// A Bloom filter's bits, hash functions, expected insertions and
	// false-positive probability, from its config.
	Bits               *int64   `json:"bits"`
	Hashes             *int64   `json:"hashes"`
	ExpectedInsertions *int64   `json:"expected_insertions"`
	FalseProbability   *float64 `json:"false_probability"`
	// Estimate: a HyperLogLog's cardinality (PFCOUNT).
	Estimate *int64 `json:"estimate"`
	// Double: an atomic double's value.
	Double *float64 `json:"double"`
}

// HasCacheStats reports the kinds QueueCacheStats reads.
func HasCacheStats(kind string) bool {
	switch kind {
	case classify.MapCache, classify.SetCache, classify.LocalCachedMap, classify.IDGenerator, classify.BloomFilter,
		classify.HyperLogLog, classify.AtomicDouble, classify.Adder:
		return true
	}
	return false
}

// QueueCacheStats queues on pipe what kind's figures need and returns the
// function that reads them once the pipeline ran; listeners counts the
// subscribers of a channel.
func QueueCacheStats(ctx context.Context, pipe redis.Pipeliner, kind, name string, c classify.CacheNames, now time.Time) func(listeners func(string) int64) *CacheStats {
	ms := strconv.FormatInt(now.UnixMilli(), 10)
	var done []func(*CacheStats)
	count := func(dst **int64, cmd *redis.IntCmd) {
		done = append(done, func(*CacheStats) {
			if cmd.Err() == nil {
				n := cmd.Val()
				*dst = &n
			}
		})
	}
	s := &CacheStats{}
	switch kind {
	case classify.MapCache:
		count(&s.Entries, pipe.HLen(ctx, name))
		count(&s.WithTTL, pipe.ZCard(ctx, c.Timeout))
		count(&s.WithIdle, pipe.ZCard(ctx, c.Idle))
		count(&s.Expired, pipe.ZCount(ctx, c.Timeout, "-inf", ms))
		count(&s.IdleExpired, pipe.ZCount(ctx, c.Idle, "-inf", ms))
		opts := pipe.HMGet(ctx, c.Options, "max-size", "mode")
		done = append(done, func(s *CacheStats) { s.MaxSize, s.EvictionMode = mapCacheOptions(opts.Val()) })
	case classify.SetCache:
		lo, hi := classify.SetCacheBounds(now)
		count(&s.Entries, pipe.ZCard(ctx, name))
		count(&s.WithTTL, pipe.ZCount(ctx, name, lo, hi))
		count(&s.Expired, pipe.ZCount(ctx, name, "-inf", ms))
	case classify.LocalCachedMap:
		count(&s.Entries, pipe.HLen(ctx, name))
	case classify.IDGenerator:
		next, block := pipe.Get(ctx, name), pipe.Get(ctx, c.Allocation)
		done = append(done, func(s *CacheStats) { s.NextID, s.Block = intOf(next.Val()), intOf(block.Val()) })
	case classify.BloomFilter:
		cfg := pipe.HGetAll(ctx, c.BloomConfig)
		done = append(done, func(s *CacheStats) { bloomConfig(s, cfg.Val()) })
	case classify.HyperLogLog:
		count(&s.Estimate, pipe.PFCount(ctx, name))
	case classify.AtomicDouble:
		v := pipe.Get(ctx, name)
		done = append(done, func(s *CacheStats) {
			if f, err := strconv.ParseFloat(strings.TrimSpace(v.Val()), 64); err == nil {
				s.Double = &f
			}
		})
	}
	return func(listeners func(string) int64) *CacheStats {
		for _, d := range done {
			d(s)
		}
		for _, ch := range classify.Listeners(kind, c) {
			s.Listeners += listeners(ch)
		}
		return s
	}
}

// mapCacheOptions reads a map cache's options hash: max size (0 when it
// has none) and eviction mode.
func mapCacheOptions(v []any) (*int64, string) {
	var zero int64
	size, mode := &zero, ""
	if s, ok := v[0].(string); ok {
		size = intOf(s)
	}
	if s, ok := v[1].(string); ok {
		mode = s
	}
	return size, mode
}

// bloomConfig reads a Bloom filter's config hash into s.
func bloomConfig(s *CacheStats, cfg map[string]string) {
	s.Bits, s.Hashes, s.ExpectedInsertions = intOf(cfg["size"]), intOf(cfg["hashIterations"]), intOf(cfg["expectedInsertions"])
	if f, err := strconv.ParseFloat(cfg["falseProbability"], 64); err == nil {
		s.FalseProbability = &f
	}
}

func intOf(s string) *int64 {
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil {
		return nil
	}
	return &n
}

// CacheState is the STATE of a kind with CacheStats, as ls and the
// dashboard print it.
func CacheState(kind string, s *CacheStats) string {
	n := func(p *int64) string {
		if p == nil {
			return "?"
		}
		return strconv.FormatInt(*p, 10)
	}
	var st string
	switch kind {
	case classify.MapCache:
		st = fmt.Sprintf("%s entries, %s with TTL, %s with max idle", n(s.Entries), n(s.WithTTL), n(s.WithIdle))
		if s.MaxSize != nil && *s.MaxSize > 0 {
			st += fmt.Sprintf(", max size %d %s", *s.MaxSize, s.EvictionMode)
		}
		st += expiredState(s)
	case classify.SetCache:
		st = fmt.Sprintf("%s members, %s with TTL", n(s.Entries), n(s.WithTTL)) + expiredState(s)
	case classify.LocalCachedMap:
		st = fmt.Sprintf("%s entries, %d near cache(s)", n(s.Entries), s.Listeners)
		return st
	case classify.IDGenerator:
		return fmt.Sprintf("next id %s, block %s", n(s.NextID), n(s.Block))
	case classify.BloomFilter:
		return fmt.Sprintf("%s bits, %s hashes, %s expected insertions", n(s.Bits), n(s.Hashes), n(s.ExpectedInsertions))
	case classify.HyperLogLog:
		return "estimate " + n(s.Estimate)
	case classify.AtomicDouble:
		if s.Double == nil {
			return "value ?"
		}
		return "value " + strconv.FormatFloat(*s.Double, 'g', -1, 64)
	case classify.Adder:
		return fmt.Sprintf("%d instance(s)", s.Listeners)
	}
	if s.Listeners > 0 {
		st += fmt.Sprintf(", %d listener(s)", s.Listeners)
	}
	return st
}

// expiredState is the part of a cache's state that counts its entries past
// their time, not cleaned up yet.
func expiredState(s *CacheStats) string {
	var e int64
	for _, p := range []*int64{s.Expired, s.IdleExpired} {
		if p != nil {
			e += *p
		}
	}
	if e == 0 {
		return ""
	}
	return fmt.Sprintf(", %d expired not cleaned", e)
}

// QueueCacheFacts queues on pipe the reads that tell a cache, counter or
// probabilistic object from a plain key of type typ (a hash's map cache
// companions and updates log, a string's allocation and Bloom config, a
// zset's scores) and returns the function that adds them to f once the
// pipeline ran.
func QueueCacheFacts(ctx context.Context, pipe redis.Pipeliner, typ, name string, c classify.CacheNames, now time.Time) func(f *classify.Facts) {
	switch typ {
	case "hash":
		cacheKeys, updLog := pipe.Exists(ctx, c.MapCacheKeys()...), pipe.Exists(ctx, c.UpdatesLog)
		return func(f *classify.Facts) { f.MapCacheKeys, f.UpdatesLog = cacheKeys.Val() > 0, updLog.Val() > 0 }
	case "string":
		alloc, bloom := pipe.Exists(ctx, c.Allocation), pipe.Exists(ctx, c.BloomConfig)
		return func(f *classify.Facts) { f.Allocation, f.BloomConfig = alloc.Val() > 0, bloom.Val() > 0 }
	case "zset":
		lo, hi := classify.SetCacheBounds(now)
		size, timed := pipe.ZCard(ctx, name), pipe.ZCount(ctx, name, lo, hi)
		noTTL := pipe.ZCount(ctx, name, classify.NoTTLScore, classify.NoTTLScore)
		sample := pipe.ZRangeWithScores(ctx, name, 0, classify.SampleSize-1)
		return func(f *classify.Facts) {
			f.ZCard, f.ZTimed, f.ZNoTTL = size.Val(), timed.Val(), noTTL.Val()
			for _, z := range sample.Val() {
				f.ZSample = append(f.ZSample, z.Score)
			}
		}
	}
	return func(*classify.Facts) {}
}
