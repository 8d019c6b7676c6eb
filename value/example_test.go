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

// Many buckets in one command, shared with Java's
// redisson.getBuckets(StringCodec.INSTANCE).
func ExampleBuckets() {
	rdb := redis.NewClient(&redis.Options{Addr: os.Getenv("REDIS_ADDR")})
	defer rdb.Close()
	client, err := redisson.New(rdb)
	if err != nil {
		panic(err)
	}
	defer client.Close()
	ctx := context.Background()

	prices := redisson.NewBuckets[string](client, codec.String())
	_ = prices.Set(ctx, map[string]string{"price:a": "10", "price:b": "12"})        // MSET
	set, _ := prices.TrySet(ctx, map[string]string{"price:b": "0", "price:c": "7"}) // MSETNX: b exists
	got, _ := prices.Get(ctx, "price:a", "price:b", "price:c")                      // MGET
	fmt.Println(set, got)
	_, _ = rdb.Del(ctx, "price:a", "price:b").Result()
	// Output: false map[price:a:10 price:b:12]
}

// A float counter shared with Java's redisson.getAtomicDouble("load").
func ExampleAtomicDouble() {
	rdb := redis.NewClient(&redis.Options{Addr: os.Getenv("REDIS_ADDR")})
	defer rdb.Close()
	client, err := redisson.New(rdb)
	if err != nil {
		panic(err)
	}
	defer client.Close()
	ctx := context.Background()

	load := client.AtomicDouble("load")
	_ = load.Set(ctx, 1.5)                      // SET load 1.5
	n, _ := load.AddAndGet(ctx, 2.25)           // INCRBYFLOAT load 2.25
	ok, _ := load.CompareAndSet(ctx, 3.75, 0.5) // compares numbers
	last, _ := load.GetAndDelete(ctx)
	fmt.Println(n, ok, last)
	// Output: 3.75 true 0.5
}

// Order numbers from blocks of 100, shared with Java's
// redisson.getIdGenerator("order-ids").
func ExampleIdGenerator() {
	rdb := redis.NewClient(&redis.Options{Addr: os.Getenv("REDIS_ADDR")})
	defer rdb.Close()
	client, err := redisson.New(rdb)
	if err != nil {
		panic(err)
	}
	defer client.Close()
	ctx := context.Background()

	ids := client.IdGenerator("order-ids") // one handle, shared: it keeps its block
	defer ids.Delete(ctx)
	_, _ = ids.TryInit(ctx, 1000, 100) // first id 1000, blocks of 100
	a, _ := ids.NextID(ctx)            // takes 1000..1099 from Redis
	b, _ := ids.NextID(ctx)            // local
	fmt.Println(a, b)
	// Output: 1000 1001
}

// Bucket TTL operations: keep, read and change a key's time to live.
func ExampleBucket_GetAndExpire() {
	rdb := redis.NewClient(&redis.Options{Addr: os.Getenv("REDIS_ADDR")})
	defer rdb.Close()
	client, err := redisson.New(rdb)
	if err != nil {
		panic(err)
	}
	defer client.Close()
	ctx := context.Background()

	session := value.NewBucket[string](client.Source(), "session:9", codec.String())
	_ = session.SetTTL(ctx, "alice", time.Minute)
	_ = session.SetKeepTTL(ctx, "alice2")                            // SET ... KEEPTTL
	v, _, _ := session.GetAndExpire(ctx, 30*time.Minute)             // GETEX ... PX
	set, _ := session.ExpireIf(ctx, time.Hour, value.ExpireIfNotSet) // it has one: false
	cleared, _ := session.ClearExpire(ctx)                           // PERSIST
	_, _ = session.Delete(ctx)
	fmt.Println(v, set, cleared)
	// Output: alice2 false true
}
