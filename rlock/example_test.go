package rlock_test

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/rlock"
)

// Lock waits for the lock; the deferred Unlock releases this hold. Without
// a lease the watchdog keeps the lock while it is held.
func Example() {
	rdb := redis.NewClient(&redis.Options{Addr: os.Getenv("REDIS_ADDR")})
	defer rdb.Close()
	client, err := redisson.New(rdb)
	if err != nil {
		panic(err)
	}
	defer client.Close()
	ctx := context.Background()

	lock := client.Lock("example:rlock:orders:42")
	h, err := lock.Lock(ctx) // ctx bounds the wait only
	if err != nil {
		panic(err)
	}
	defer h.Unlock(context.Background())

	// Work under h.Context(): it is done if the lock is lost.
	locked, _ := lock.IsLocked(ctx)
	fmt.Println("holding", h.Name(), "locked:", locked, "lost:", h.Err() != nil)
	// Output: holding example:rlock:orders:42 locked: true lost: false
}

// TryLock waits at most WithWait for the lock and holds it for the fixed
// lease WithLease, without the watchdog; a second owner fails to take it.
func ExampleLock_TryLock() {
	rdb := redis.NewClient(&redis.Options{Addr: os.Getenv("REDIS_ADDR")})
	defer rdb.Close()
	client, err := redisson.New(rdb)
	if err != nil {
		panic(err)
	}
	defer client.Close()
	ctx := context.Background()

	lock := client.Lock("example:rlock:report")
	h, ok, err := lock.TryLock(ctx, rlock.WithWait(time.Second), rlock.WithLease(10*time.Second))
	if err != nil {
		panic(err)
	}
	fmt.Println("acquired:", ok)
	defer h.Unlock(context.Background())

	// Another owner (a fresh one by default) waits 100ms in vain.
	_, ok, err = lock.TryLock(ctx, rlock.WithWait(100*time.Millisecond))
	fmt.Println("second owner acquired:", ok, err)
	ttl, _ := lock.RemainTTL(ctx)
	fmt.Println("lease at most 10s:", ttl > 0 && ttl <= 10*time.Second)
	// Output:
	// acquired: true
	// second owner acquired: false <nil>
	// lease at most 10s: true
}

// The lock is reentrant for an owner: WithOwner(h.Owner()) takes it again
// and counts one hold more; each hold is released by its own Unlock.
func ExampleWithOwner() {
	rdb := redis.NewClient(&redis.Options{Addr: os.Getenv("REDIS_ADDR")})
	defer rdb.Close()
	client, err := redisson.New(rdb)
	if err != nil {
		panic(err)
	}
	defer client.Close()
	ctx := context.Background()

	lock := client.Lock("example:rlock:account:7")
	outer, err := lock.Lock(ctx)
	if err != nil {
		panic(err)
	}
	inner, err := lock.Lock(ctx, rlock.WithOwner(outer.Owner()))
	if err != nil {
		panic(err)
	}
	n, _ := lock.HoldCount(ctx, outer.Owner())
	fmt.Println("holds:", n)

	_ = inner.Unlock(ctx)
	n, _ = lock.HoldCount(ctx, outer.Owner())
	locked, _ := lock.IsLocked(ctx)
	fmt.Println("holds:", n, "locked:", locked)

	_ = outer.Unlock(ctx)
	locked, _ = lock.IsLocked(ctx)
	fmt.Println("locked:", locked)
	// Output:
	// holds: 2
	// holds: 1 locked: true
	// locked: false
}
