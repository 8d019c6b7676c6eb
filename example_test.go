package redisson_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/rlock"
)

// exampleRedis starts a private redis-server for the examples.
func exampleRedis() (addr string, stop func()) {
	srv, err := redistest.Start(context.Background(), redistest.Options{})
	if err != nil {
		panic(err)
	}
	return srv.Addr(), func() { _ = srv.Stop() }
}

// A lock held with the watchdog: the lease is renewed until Unlock.
func Example() {
	addr, stop := exampleRedis()
	defer stop()

	rdb := redis.NewClient(&redis.Options{Addr: addr})
	defer rdb.Close()
	client, err := redisson.New(rdb)
	if err != nil {
		panic(err)
	}
	defer client.Close()

	ctx := context.Background()
	lock := client.Lock("orders:42")
	ctx, err = lock.Lock(ctx) // ctx now carries the owner
	if err != nil {
		panic(err)
	}
	defer lock.Unlock(ctx)

	n, _ := lock.HoldCount(ctx)
	fmt.Println("held:", n)
	// Output: held: 1
}

// TryLock with a wait budget and a fixed lease (no watchdog).
func Example_tryLock() {
	addr, stop := exampleRedis()
	defer stop()
	rdb := redis.NewClient(&redis.Options{Addr: addr})
	defer rdb.Close()
	client, _ := redisson.New(rdb)
	defer client.Close()

	ctx := context.Background()
	lock := client.Lock("report")
	holder, _ := lock.Lock(ctx)

	_, ok, err := lock.TryLock(ctx, rlock.WithWait(100*time.Millisecond), rlock.WithLease(10*time.Second))
	fmt.Println("second owner got it:", ok, err)

	_ = lock.Unlock(holder)
	ctx2, ok, _ := lock.TryLock(ctx, rlock.WithWait(time.Second), rlock.WithLease(10*time.Second))
	fmt.Println("after unlock:", ok)
	_ = lock.Unlock(ctx2)
	// Output:
	// second owner got it: false <nil>
	// after unlock: true
}

// The holder's context ends when ownership is lost, with cause ErrLockLost.
func Example_lockLost() {
	addr, stop := exampleRedis()
	defer stop()
	rdb := redis.NewClient(&redis.Options{Addr: addr})
	defer rdb.Close()
	client, _ := redisson.New(rdb, redisson.WithWatchdogTimeout(300*time.Millisecond))
	defer client.Close()

	ctx, err := client.Lock("job").Lock(context.Background())
	if err != nil {
		panic(err)
	}
	rdb.Del(context.Background(), "job") // someone deletes the lock behind our back

	<-ctx.Done()
	fmt.Println(errors.Is(context.Cause(ctx), redisson.ErrLockLost))
	// Output: true
}

// Reentrancy: the context returned by Lock re-enters; another owner waits.
func Example_reentrant() {
	addr, stop := exampleRedis()
	defer stop()
	rdb := redis.NewClient(&redis.Options{Addr: addr})
	defer rdb.Close()
	client, _ := redisson.New(rdb)
	defer client.Close()

	lock := client.Lock("tree")
	outer, _ := lock.Lock(context.Background())
	inner, _ := lock.Lock(outer) // same owner: re-enters
	n, _ := lock.HoldCount(inner)
	fmt.Println("hold count:", n)

	_, ok, _ := lock.TryLock(redisson.WithOwner(context.Background()))
	fmt.Println("other owner:", ok)

	_ = lock.Unlock(inner)
	_ = lock.Unlock(outer)
	err := lock.Unlock(outer)
	fmt.Println(errors.Is(err, redisson.ErrNotOwner))
	// Output:
	// hold count: 2
	// other owner: false
	// true
}
