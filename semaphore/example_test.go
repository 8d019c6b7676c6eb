package semaphore_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/semaphore"
)

// At most two jobs run at once, across every process sharing the
// semaphore "reports" (Java's RSemaphore of that name included).
func Example() {
	rdb := redis.NewClient(&redis.Options{Addr: os.Getenv("REDIS_ADDR")})
	defer rdb.Close()
	client, err := redisson.New(rdb)
	if err != nil {
		panic(err)
	}
	defer client.Close()
	ctx := context.Background()

	sem := client.Semaphore("reports")
	// Only the first process to get here initialises it.
	if _, err := sem.TrySetPermits(ctx, 2); err != nil {
		panic(err)
	}

	var wg sync.WaitGroup
	for range 5 {
		wg.Go(func() {
			p, err := sem.AcquirePermits(ctx, 1) // waits; ctx bounds the wait
			if err != nil {
				return
			}
			defer p.Release(ctx) // gives back exactly this permit, once
			// ... run the job ...
		})
	}
	wg.Wait()
	n, _ := sem.AvailablePermits(ctx)
	fmt.Println("available:", n)
	// Output: available: 2
}

// TryAcquire gives up when the permits do not come within the wait.
func ExampleSemaphore_TryAcquire() {
	rdb := redis.NewClient(&redis.Options{Addr: os.Getenv("REDIS_ADDR")})
	defer rdb.Close()
	client, err := redisson.New(rdb)
	if err != nil {
		panic(err)
	}
	defer client.Close()
	ctx := context.Background()

	sem := client.Semaphore("exports")
	if _, err := sem.TrySetPermits(ctx, 1); err != nil {
		panic(err)
	}
	ok, _ := sem.TryAcquire(ctx, 1)
	fmt.Println("first:", ok)
	ok, _ = sem.TryAcquire(ctx, 1, semaphore.WithWait(50*time.Millisecond))
	fmt.Println("second, after waiting:", ok)
	_ = sem.Release(ctx, 1)
	ok, _ = sem.TryAcquire(ctx, 1, semaphore.WithWait(time.Second))
	fmt.Println("after a release:", ok)
	// Output:
	// first: true
	// second, after waiting: false
	// after a release: true
}

// A semaphore that vanishes unless used: its key gets a TTL.
func ExampleWithTTL() {
	rdb := redis.NewClient(&redis.Options{Addr: os.Getenv("REDIS_ADDR")})
	defer rdb.Close()
	client, err := redisson.New(rdb)
	if err != nil {
		panic(err)
	}
	defer client.Close()
	ctx := context.Background()

	sem := client.Semaphore("batch")
	set, _ := sem.TrySetPermits(ctx, 3, semaphore.WithTTL(time.Hour))
	ttl := client.Redis().PTTL(ctx, "batch").Val()
	fmt.Println(set, ttl > 59*time.Minute)
	// Output: true true
}

// A worker holds a permit with a lease, so that a crashed worker's permit
// comes back by itself; a Java RPermitExpirableSemaphore of the same name
// shares the permits.
func ExampleExpirableSemaphore() {
	rdb := redis.NewClient(&redis.Options{Addr: os.Getenv("REDIS_ADDR")})
	defer rdb.Close()
	client, err := redisson.New(rdb)
	if err != nil {
		panic(err)
	}
	defer client.Close()
	ctx := context.Background()

	sem := client.PermitExpirableSemaphore("uploads")
	if _, err := sem.TrySetPermits(ctx, 2); err != nil {
		panic(err)
	}
	id, err := sem.Acquire(ctx, semaphore.WithLease(time.Minute))
	if err != nil {
		panic(err)
	}
	// ... a long job can extend its lease as it goes ...
	if _, err := sem.UpdateLeaseTime(ctx, id, 2*time.Minute); err != nil {
		panic(err)
	}
	held, _ := sem.AcquiredPermits(ctx)
	fmt.Println("held:", held)
	if err := sem.Release(ctx, id); err != nil {
		panic(err)
	}
	err = sem.Release(ctx, id)
	fmt.Println("twice:", errors.Is(err, semaphore.ErrUnknownPermit))
	// Output:
	// held: 1
	// twice: true
}
