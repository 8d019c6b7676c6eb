package localcache_test

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/codec"
	"github.com/goredisson/redisson/localcache"
)

// A near cache shared with Java's
// redisson.getLocalCachedMap(LocalCachedMapOptions.name("example:prices")
// .codec(StringCodec.INSTANCE)): two instances (here two clients of one
// process; in production Java and Go services) keep each other's caches
// coherent.
func ExampleLocalCachedMap() {
	ctx := context.Background()
	newClient := func() *redisson.Client {
		c, err := redisson.New(redis.NewClient(&redis.Options{Addr: os.Getenv("REDIS_ADDR")}))
		if err != nil {
			panic(err)
		}
		return c
	}
	a, b := newClient(), newClient()
	defer a.Close()
	defer b.Close()

	prices := redisson.NewLocalCachedMap[string, string](a, "example:prices", codec.String(), localcache.Options{})
	other := redisson.NewLocalCachedMap[string, string](b, "example:prices", codec.String(), localcache.Options{})
	defer prices.Close()
	defer other.Close()
	_ = prices.Clear(ctx)

	_, _, _ = prices.Put(ctx, "tea", "3.50")
	v, _, _ := other.Get(ctx, "tea") // a miss: HGET, then cached
	fmt.Println("other reads", v, "and caches", other.CachedSize(), "entry")

	_, _, _ = prices.Put(ctx, "tea", "3.80") // publishes the invalidation
	// The message arrives within a millisecond or so; wait for it.
	for deadline := time.Now().Add(5 * time.Second); other.CachedSize() != 0 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	v, _, _ = other.Get(ctx, "tea")
	fmt.Println("other reads", v)
	v, _, _ = other.Get(ctx, "tea") // served by the near cache
	fmt.Println("hits", other.Stats().Hits)
	// Output:
	// other reads 3.50 and caches 1 entry
	// other reads 3.80
	// hits 1
}
