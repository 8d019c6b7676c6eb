package value_test

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/codec"
	"github.com/goredisson/redisson/value"
)

// A feature flag shared with Java's
// redisson.getBucket("flags:checkout", StringCodec.INSTANCE).
func ExampleBucket() {
	rdb := redis.NewClient(&redis.Options{Addr: os.Getenv("REDIS_ADDR")})
	defer rdb.Close()
	client, err := redisson.New(rdb)
	if err != nil {
		panic(err)
	}
	defer client.Close()
	ctx := context.Background()

	flag := value.NewBucket[string](client.Source(), "flags:checkout", codec.String())
	set, _ := flag.SetIfAbsentTTL(ctx, "on", time.Minute) // SET flags:checkout on PX 60000 NX
	v, found, _ := flag.Get(ctx)
	swapped, _ := flag.CompareAndSet(ctx, "on", "off") // compares the stored bytes
	old, _, _ := flag.GetAndDelete(ctx)
	_, found2, _ := flag.Get(ctx)
	fmt.Println(set, v, found, swapped, old, found2)
	// Output: true on true true off false
}

// Java's null is a nil pointer: setting it deletes the key.
func ExampleBucket_Set_nil() {
	rdb := redis.NewClient(&redis.Options{Addr: os.Getenv("REDIS_ADDR")})
	defer rdb.Close()
	client, err := redisson.New(rdb)
	if err != nil {
		panic(err)
	}
	defer client.Close()
	ctx := context.Background()

	b := value.NewBucket[*int64](client.Source(), "limit", codec.JsonJackson(nil))
	n := int64(5)
	_ = b.Set(ctx, &n)
	stored, _ := rdb.Get(ctx, "limit").Result()
	_ = b.Set(ctx, nil)
	exists, _ := rdb.Exists(ctx, "limit").Result()
	fmt.Println(stored, exists)
	// Output: ["java.lang.Long",5] 0
}

// A counter shared with Java's redisson.getAtomicLong("orders:seq").
func ExampleAtomicLong() {
	rdb := redis.NewClient(&redis.Options{Addr: os.Getenv("REDIS_ADDR")})
	defer rdb.Close()
	client, err := redisson.New(rdb)
	if err != nil {
		panic(err)
	}
	defer client.Close()
	ctx := context.Background()

	seq := value.NewAtomicLong(client.Source(), "orders:seq")
	first, _ := seq.IncrementAndGet(ctx)
	next, _ := seq.AddAndGet(ctx, 9)
	ok, _ := seq.CompareAndSet(ctx, 10, 100)
	last, _ := seq.GetAndDelete(ctx)
	fmt.Println(first, next, ok, last)
	// Output: 1 10 true 100
}
