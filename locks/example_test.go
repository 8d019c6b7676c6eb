package locks_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/locks"
)

// guarded runs the critical section under h, whatever kind of lock h is
// of, and releases it.
func guarded(h *locks.Hold, work func(ctx context.Context)) error {
	work(h.Context())
	return h.Unlock(context.Background())
}

// One option set and one hold for every lock kind: the options are built
// once and given to a lock, a fair lock and a fenced lock, whose hold
// embeds the shared one.
func Example() {
	rdb := redis.NewClient(&redis.Options{Addr: os.Getenv("REDIS_ADDR")})
	defer rdb.Close()
	client, err := redisson.New(rdb)
	if err != nil {
		panic(err)
	}
	defer client.Close()
	ctx := context.Background()
	opts := []locks.Option{locks.WithLease(time.Minute), locks.WithWait(time.Second)}

	h, _, _ := client.Lock("example:locks:orders").TryLock(ctx, opts...)
	fmt.Println(guarded(h, func(context.Context) { fmt.Println("holding", h.Name()) }))
	fh, _, _ := client.FairLock("example:locks:queue").TryLock(ctx, opts...)
	fmt.Println(guarded(fh, func(context.Context) { fmt.Println("holding", fh.Name()) }))
	th, _, _ := client.FencedLock("example:locks:ledger").TryLock(ctx, opts...)
	fmt.Println(guarded(&th.Hold, func(context.Context) { fmt.Println("holding", th.Name(), "token > 0:", th.Token() > 0) }))

	// Lock waits until ctx is done: a wait is refused, not ignored.
	_, err = client.Lock("example:locks:orders").Lock(ctx, opts...)
	fmt.Println(errors.Is(err, redisson.ErrInvalidArgument))
	// Output:
	// holding example:locks:orders
	// <nil>
	// holding example:locks:queue
	// <nil>
	// holding example:locks:ledger token > 0: true
	// <nil>
	// true
}

// Extend sets a held lock's lease anew, counted from now, when the work
// takes longer than planned; the hold's Done follows the new lease. After
// Unlock there is nothing to extend.
func ExampleHold_Extend() {
	rdb := redis.NewClient(&redis.Options{Addr: os.Getenv("REDIS_ADDR")})
	defer rdb.Close()
	client, err := redisson.New(rdb)
	if err != nil {
		panic(err)
	}
	defer client.Close()
	ctx := context.Background()
	lock := client.Lock("example:locks:report")

	h, err := lock.Lock(ctx, locks.WithLease(10*time.Second))
	if err != nil {
		panic(err)
	}
	// The report takes longer: hold the lock for a minute from now.
	if err := h.Extend(ctx, time.Minute); err != nil {
		// errors.Is(err, redisson.ErrLockLost): the lock is gone, stop
		// working under it. Otherwise the hold keeps its earlier end.
		panic(err)
	}
	ttl, err := lock.RemainTTL(ctx)
	if err != nil {
		panic(err)
	}
	fmt.Println("held for more than 50s:", ttl > 50*time.Second, h.Err())
	fmt.Println(h.Unlock(ctx))
	fmt.Println(errors.Is(h.Extend(ctx, time.Minute), redisson.ErrNotOwner))
	// Output:
	// held for more than 50s: true <nil>
	// <nil>
	// true
}
