package latch_test

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/latch"
)

// exampleClient starts a private redis-server and returns a Client on it.
func exampleClient() (client *redisson.Client, stop func()) {
	srv, err := redistest.Start(context.Background(), redistest.Options{})
	if err != nil {
		panic(err)
	}
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr()})
	client, err = redisson.New(rdb)
	if err != nil {
		panic(err)
	}
	return client, func() {
		_ = client.Close()
		_ = rdb.Close()
		_ = srv.Stop()
	}
}

// A coordinator waits until three workers, anywhere in the fleet (Java's
// RCountDownLatch of the same name included), have each counted down once.
func Example() {
	client, stop := exampleClient()
	defer stop()
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
	client, stop := exampleClient()
	defer stop()
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
