package source_test

import (
	"context"
	"fmt"
	"os"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/codec"
	"github.com/goredisson/redisson/queue"
	"github.com/goredisson/redisson/rlock"
)

// Objects built through their packages' constructors from the client's
// Source: the same objects Client.Lock and redisson.NewQueue return.
func ExampleSource() {
	rdb := redis.NewClient(&redis.Options{Addr: os.Getenv("REDIS_ADDR")})
	defer rdb.Close()
	client, err := redisson.New(rdb)
	if err != nil {
		panic(err)
	}
	defer client.Close()
	ctx := context.Background()
	src := client.Source()

	lock := rlock.New(src, "orders:42")
	h, err := lock.Lock(ctx)
	if err != nil {
		panic(err)
	}
	held, _ := client.Lock("orders:42").IsLocked(ctx) // the same lock
	_ = h.Unlock(ctx)

	jobs := queue.NewQueue[string](src, "jobs", codec.String())
	_ = jobs.Offer(ctx, "build")
	job, _, _ := redisson.NewQueue[string](client, "jobs", codec.String()).Poll(ctx)
	fmt.Println(held, job)
	// Output: true build
}
