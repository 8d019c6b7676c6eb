package bloom_test

import (
	"context"
	"fmt"
	"os"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/codec"
)

// A filter shared with Java services: Java's
// redisson.getBloomFilter("emails:sent", StringCodec.INSTANCE) finds what
// Go added, and the other way round.
func ExampleBloomFilter() {
	rdb := redis.NewClient(&redis.Options{Addr: os.Getenv("REDIS_ADDR")})
	defer rdb.Close()
	client, err := redisson.New(rdb)
	if err != nil {
		panic(err)
	}
	defer client.Close()
	ctx := context.Background()

	sent := redisson.NewBloomFilter[string](client, "emails:sent", codec.String())
	defer sent.Delete(ctx)
	if _, err := sent.TryInit(ctx, 100, 0.01); err != nil { // {emails:sent}:config
		panic(err)
	}
	_, _ = sent.Add(ctx, "ann@example.com")
	in, _ := sent.Contains(ctx, "ann@example.com")
	out, _ := sent.Contains(ctx, "bob@example.com")
	size, _ := sent.Size(ctx)
	fmt.Println(in, out, size)
	// Output: true false 958
}
