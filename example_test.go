package redisson_test

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

// A lock held with the watchdog: the lease is renewed until the hold is
// released.
func Example() {
	rdb := redis.NewClient(&redis.Options{Addr: os.Getenv("REDIS_ADDR")})
	defer rdb.Close()
	client, err := redisson.New(rdb)
	if err != nil {
		panic(err)
	}
	defer client.Close()

	ctx := context.Background()
	lock := client.Lock("orders:42")
	h, err := lock.Lock(ctx) // ctx bounds the wait only
	if err != nil {
		panic(err)
	}
	defer h.Unlock(ctx) // the only way to release this hold

	// Work under h.Context(): it is done if ownership is lost.
	n, _ := lock.HoldCount(h.Context(), h.Owner())
	fmt.Println("held:", n)
	// Output: held: 1
}

// TryLock with a wait budget and a fixed lease (no watchdog).
func Example_tryLock() {
	rdb := redis.NewClient(&redis.Options{Addr: os.Getenv("REDIS_ADDR")})
	defer rdb.Close()
	client, _ := redisson.New(rdb)
	defer client.Close()

	ctx := context.Background()
	lock := client.Lock("report")
	holder, _ := lock.Lock(ctx)

	_, ok, err := lock.TryLock(ctx, rlock.WithWait(100*time.Millisecond), rlock.WithLease(10*time.Second))
	fmt.Println("second owner got it:", ok, err)

	_ = holder.Unlock(ctx)
	h, ok, _ := lock.TryLock(ctx, rlock.WithWait(time.Second), rlock.WithLease(10*time.Second))
	fmt.Println("after unlock:", ok)
	_ = h.Unlock(ctx)
	// Output:
	// second owner got it: false <nil>
	// after unlock: true
}

// A hold's Done is closed when ownership is lost, before the lease can have
// run out in Redis; Err says why.
func Example_lockLost() {
	rdb := redis.NewClient(&redis.Options{Addr: os.Getenv("REDIS_ADDR")})
	defer rdb.Close()
	client, _ := redisson.New(rdb, redisson.WithWatchdogTimeout(300*time.Millisecond))
	defer client.Close()

	h, err := client.Lock("job").Lock(context.Background())
	if err != nil {
		panic(err)
	}
	rdb.Del(context.Background(), "job") // someone deletes the lock behind our back

	<-h.Done()
	fmt.Println(errors.Is(h.Err(), redisson.ErrLockLost))
	// Output: true
}

// Reentrancy: the same owner re-enters; another owner waits. A hold is
// released once.
func Example_reentrant() {
	rdb := redis.NewClient(&redis.Options{Addr: os.Getenv("REDIS_ADDR")})
	defer rdb.Close()
	client, _ := redisson.New(rdb)
	defer client.Close()

	ctx := context.Background()
	lock := client.Lock("tree")
	outer, _ := lock.Lock(ctx)
	inner, _ := lock.Lock(ctx, rlock.WithOwner(outer.Owner())) // same owner: re-enters
	n, _ := lock.HoldCount(ctx, outer.Owner())
	fmt.Println("hold count:", n)

	_, ok, _ := lock.TryLock(ctx) // a fresh owner
	fmt.Println("other owner:", ok)

	_ = inner.Unlock(ctx)
	_ = outer.Unlock(ctx)
	err := outer.Unlock(ctx)
	fmt.Println(errors.Is(err, redisson.ErrNotOwner))
	// Output:
	// hold count: 2
	// other owner: false
	// true
}

// Several locks as one owner, the way code on one Java thread takes them.
func ExampleNewOwnerID() {
	rdb := redis.NewClient(&redis.Options{Addr: os.Getenv("REDIS_ADDR")})
	defer rdb.Close()
	client, _ := redisson.New(rdb)
	defer client.Close()

	ctx := context.Background()
	me := redisson.NewOwnerID()
	a, _ := client.Lock("a").Lock(ctx, rlock.WithOwner(me))
	b, _ := client.Lock("b").Lock(ctx, rlock.WithOwner(me))
	held, _ := client.Lock("a").IsHeldByOwner(ctx, me)
	fmt.Println(held, a.Owner() == b.Owner())
	_ = b.Unlock(ctx)
	_ = a.Unlock(ctx)
	// Output: true true
}
