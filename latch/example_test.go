package latch_test

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/latch"
)

// A coordinator waits until three workers, anywhere in the fleet (Java's
// RCountDownLatch of the same name included), have each counted down once.
func Example() {
	rdb := redis.NewClient(&redis.Options{Addr: os.Getenv("REDIS_ADDR")})
	defer rdb.Close()
	client, err := redisson.New(rdb)
	if err != nil {
		panic(err)
	}
	defer client.Close()
	ctx := context.Background()

	ready := client.CountDownLatch("warmup")
	if _, err := ready.TrySetCount(ctx, 3); err != nil {
		panic(err)
	}
	for range 3 {
		go func() {
			// ... warm a cache ...
			_ = client.CountDownLatch("warmup").CountDown(ctx)
		}()
	}
	opened, err := ready.Await(ctx) // ctx bounds the wait
	fmt.Println(opened, err)
	n, _ := ready.Count(ctx)
	fmt.Println("count:", n)
	// Output:
	// true <nil>
	// count: 0
}

// WithTimeout bounds the wait: false means the count did not reach zero in
// time.
func ExampleWithTimeout() {
	rdb := redis.NewClient(&redis.Options{Addr: os.Getenv("REDIS_ADDR")})
	defer rdb.Close()
	client, err := redisson.New(rdb)
	if err != nil {
		panic(err)
	}
	defer client.Close()
	ctx := context.Background()

	l := client.CountDownLatch("migration")
	_, _ = l.TrySetCount(ctx, 1)
	opened, err := l.Await(ctx, latch.WithTimeout(50*time.Millisecond))
	fmt.Println(opened, err)
	_ = l.CountDown(ctx)
	opened, err = l.Await(ctx, latch.WithTimeout(50*time.Millisecond))
	fmt.Println(opened, err)
	// Output:
	// false <nil>
	// true <nil>
}
