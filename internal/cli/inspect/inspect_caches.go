package inspect

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson/internal/cli/classify"
	"github.com/goredisson/redisson/internal/cli/objinfo"
)

// cacheFacts adds to f what tells a cache, counter or probabilistic
// object from a plain key of its type.
func cacheFacts(ctx context.Context, rdb redis.UniversalClient, name string, d classify.Names, f *classify.Facts) error {
	pipe := rdb.Pipeline()
	done := objinfo.QueueCacheFacts(ctx, pipe, f.Type, name, d.Cache, time.Now())
	if err := objinfo.ExecPipe(ctx, pipe); err != nil {
		return err
	}
	done(f)
	return nil
}

// cacheKeys are the derived keys of a kind that inspect lists beside the
// object's own.
func cacheKeys(kind string, c classify.CacheNames) []string {
	switch kind {
	case classify.MapCache:
		return c.MapCacheKeys()
	case classify.LocalCachedMap, classify.Map:
		return []string{c.UpdatesLog, c.DisabledKeys}
	case classify.IDGenerator:
		return []string{c.Allocation}
	case classify.BloomFilter:
		return []string{c.BloomConfig}
	}
	return nil
}

// readCache counts the listeners of the kind's own channels (a map with
// near caches is a local cached map, a name without a key whose adder
// topic has subscribers an adder), lists the derived keys, and reads the
// figures of a kind that has some.
func readCache(ctx context.Context, rdb redis.UniversalClient, rep *Report, d classify.Names) error {
	listeners := []objinfo.ChannelSub{}
	if chans := classify.Listeners(rep.Kind, d.Cache); len(chans) > 0 {
		var err error
		if listeners, err = objinfo.Subscribers(ctx, rdb, chans); err != nil {
			return err
		}
	}
	subs := func(ch string) int64 { return objinfo.ChannelWaiters(listeners, ch) }
	rep.Kind = classify.ResolveListened(rep.Kind, subs, d.Cache)
	for _, k := range cacheKeys(rep.Kind, d.Cache) {
		ki, err := objinfo.ReadKey(ctx, rdb, k)
		if err != nil {
			return err
		}
		if ki.Type != "none" {
			rep.Keys = append(rep.Keys, ki)
		}
	}
	if !objinfo.HasCacheStats(rep.Kind) {
		return nil
	}
	rep.Listeners = listeners
	pipe := rdb.Pipeline()
	done := objinfo.QueueCacheStats(ctx, pipe, rep.Kind, rep.Name, d.Cache, time.Now())
	if err := objinfo.ExecPipe(ctx, pipe); err != nil {
		return err
	}
	rep.Cache = done(subs)
	return nil
}
