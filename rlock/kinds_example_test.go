package rlock_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/rlock"
)

// A spin lock needs no pub/sub: its waiters poll with a back-off
// (exponential by default, as Redisson's; here a constant 20ms).
func ExampleSpinLock() {
	rdb := redis.NewClient(&redis.Options{Addr: os.Getenv("REDIS_ADDR")})
	defer rdb.Close()
	client, err := redisson.New(rdb)
	if err != nil {
		panic(err)
	}
	defer client.Close()
	ctx := context.Background()

	lock := client.SpinLock("example:spinlock:report",
		rlock.WithBackOff(rlock.BackOff{Constant: true, Delay: 20 * time.Millisecond}))
	h, err := lock.Lock(ctx)
	if err != nil {
		panic(err)
	}
	// Another waiter polls until the wait runs out.
	_, ok, err := lock.TryLock(ctx, rlock.WithWait(100*time.Millisecond))
	fmt.Println("second acquired:", ok, err)
	fmt.Println("unlock:", h.Unlock(ctx))
	// Output:
	// second acquired: false <nil>
	// unlock: <nil>
}

// A non-reentrant lock refuses its holder a second acquisition.
func ExampleNonReentrantLock() {
	rdb := redis.NewClient(&redis.Options{Addr: os.Getenv("REDIS_ADDR")})
	defer rdb.Close()
	client, err := redisson.New(rdb)
	if err != nil {
		panic(err)
	}
	defer client.Close()
	ctx := context.Background()

	lock := client.NonReentrantLock("example:nonreentrant:job")
	h, err := lock.Lock(ctx)
	if err != nil {
		panic(err)
	}
	defer h.Unlock(context.Background())
	_, err = lock.Lock(ctx, rlock.WithOwner(h.Owner()))
	fmt.Println("re-entry refused:", errors.Is(err, redisson.ErrNonReentrant))
	// Output: re-entry refused: true
}
