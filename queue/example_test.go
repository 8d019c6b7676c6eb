package queue_test

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/codec"
)

// A work queue shared with Java's
// redisson.getBlockingQueue("jobs", StringCodec.INSTANCE).
func ExampleBlockingQueue() {
	rdb := redis.NewClient(&redis.Options{Addr: os.Getenv("REDIS_ADDR")})
	defer rdb.Close()
	client, _ := redisson.New(rdb)
	defer client.Close()
	ctx := context.Background()

	jobs := redisson.NewBlockingQueue[string](client, "example:jobs", codec.String())
	done := make(chan string)
	go func() {
		job, _ := jobs.Take(ctx) // BLPOP on a connection of its own
		done <- job
	}()
	_ = jobs.Put(ctx, "resize:42") // RPUSH, like Java's put
	fmt.Println(<-done)
	_, found, _ := jobs.Poll(ctx, 50*time.Millisecond) // waits at most 50 ms
	fmt.Println(found)
	// Output:
	// resize:42
	// false
}

// A deque used at both ends, shared with Java's getDeque.
func ExampleDeque() {
	rdb := redis.NewClient(&redis.Options{Addr: os.Getenv("REDIS_ADDR")})
	defer rdb.Close()
	client, _ := redisson.New(rdb)
	defer client.Close()
	ctx := context.Background()

	d := redisson.NewDeque[int64](client, "example:deque", codec.Long())
	_ = d.AddLast(ctx, 2)  // RPUSH
	_ = d.AddFirst(ctx, 1) // LPUSH
	_ = d.AddLast(ctx, 3)
	first, _, _ := d.PollFirst(ctx) // LPOP
	last, _, _ := d.PollLast(ctx)   // RPOP
	rest, _ := d.ReadAll(ctx)
	fmt.Println(first, last, rest)
	_, _ = d.Delete(ctx)
	// Output: 1 3 [2]
}

// Elements offered with a delay reach the destination queue's consumers,
// Java's or Go's, when they are due.
func ExampleDelayedQueue() {
	rdb := redis.NewClient(&redis.Options{Addr: os.Getenv("REDIS_ADDR")})
	defer rdb.Close()
	client, _ := redisson.New(rdb)
	defer client.Close()
	ctx := context.Background()

	// Java: getDelayedQueue(getBlockingQueue("example:reminders", codec)).
	reminders := redisson.NewDelayedQueue[string](client, "example:reminders", codec.String())
	defer reminders.Destroy() // stops this handle's transfer task
	_ = reminders.Offer(ctx, "call back", 100*time.Millisecond)
	_ = reminders.Offer(ctx, "send invoice", 10*time.Millisecond)
	due := reminders.Destination()
	a, _ := due.Take(ctx)
	b, _ := due.Take(ctx)
	fmt.Println(a, "/", b)
	// Output: send invoice / call back
}
