package fairlock_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/fairlock"
)

// A fair lock hands the lock to its waiters in the order they asked for it.
func Example() {
	rdb := redis.NewClient(&redis.Options{Addr: os.Getenv("REDIS_ADDR")})
	defer rdb.Close()
	client, err := redisson.New(rdb)
	if err != nil {
		panic(err)
	}
	defer client.Close()
	ctx := context.Background()

	lock := client.FairLock("example:fairlock:queue")
	h, err := lock.Lock(ctx) // ctx bounds the wait only
	if err != nil {
		panic(err)
	}

	// Another owner queues up; it gets the lock once h is released.
	got := make(chan *fairlock.Hold)
	go func() {
		next, ok, err := lock.TryLock(ctx, fairlock.WithWait(10*time.Second))
		if err != nil || !ok {
			panic(fmt.Sprint("not acquired: ", err))
		}
		got <- next
	}()

	fmt.Println("holding", h.Name())
	time.Sleep(100 * time.Millisecond) // let the waiter queue up
	if err := h.Unlock(ctx); err != nil {
		panic(err)
	}
	next := <-got
	fmt.Println("next owner holds it:", next.Owner() != h.Owner())
	if err := next.Unlock(ctx); err != nil {
		panic(err)
	}
	locked, _ := lock.IsLocked(ctx)
	fmt.Println("locked:", locked)
	// Output:
	// holding example:fairlock:queue
	// next owner holds it: true
	// locked: false
}

// A non-reentrant fair lock queues its waiters as a fair lock does and
// refuses its holder a second acquisition.
func ExampleNonReentrantLock() {
	rdb := redis.NewClient(&redis.Options{Addr: os.Getenv("REDIS_ADDR")})
	defer rdb.Close()
	client, err := redisson.New(rdb)
	if err != nil {
		panic(err)
	}
	defer client.Close()
	ctx := context.Background()

	lock := client.NonReentrantFairLock("example:nonreentrant:fair")
	h, err := lock.Lock(ctx)
	if err != nil {
		panic(err)
	}
	defer h.Unlock(context.Background())
	_, _, err = lock.TryLock(ctx, fairlock.WithOwner(h.Owner()))
	fmt.Println("re-entry refused:", errors.Is(err, redisson.ErrNonReentrant))
	// Output: re-entry refused: true
}
