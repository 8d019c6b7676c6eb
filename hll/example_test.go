package hll_test

import (
	"context"
	"fmt"
	"os"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/codec"
)

// Distinct visitors counted by Go and Java services together: Java's
// redisson.getHyperLogLog("visitors:today", StringCodec.INSTANCE).
func ExampleHyperLogLog() {
	rdb := redis.NewClient(&redis.Options{Addr: os.Getenv("REDIS_ADDR")})
	defer rdb.Close()
	client, err := redisson.New(rdb)
	if err != nil {
		panic(err)
	}
	defer client.Close()
	ctx := context.Background()

	visitors := redisson.NewHyperLogLog[string](client, "visitors:today", codec.String())
	defer visitors.Delete(ctx)
	_, _ = visitors.AddAll(ctx, "ann", "bob", "ann") // PFADD visitors:today ann bob ann
	n, _ := visitors.Count(ctx)
	fmt.Println(n)
	// Output: 2
}
