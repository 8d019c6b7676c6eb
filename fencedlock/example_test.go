package fencedlock_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/fencedlock"
)

// storage stands for the resource the lock guards: it refuses a write
// whose fencing token is smaller than one it has seen.
type storage struct {
	mu      sync.Mutex
	largest int64
	data    string
}

func (s *storage) Write(token int64, data string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if token < s.largest {
		return errors.New("stale token")
	}
	s.largest, s.data = token, data
	return nil
}

// Every acquisition gets a token larger than all before it; the guarded
// resource uses it to refuse writes from a holder whose lease ran out
// unnoticed (a paused process), since its successor's token is larger.
func Example() {
	rdb := redis.NewClient(&redis.Options{Addr: os.Getenv("REDIS_ADDR")})
	defer rdb.Close()
	client, err := redisson.New(rdb)
	if err != nil {
		panic(err)
	}
	defer client.Close()
	ctx := context.Background()
	store := &storage{}
	lock := client.FencedLock("example:fencedlock:invoice:7")

	first, err := lock.Lock(ctx)
	if err != nil {
		panic(err)
	}
	fmt.Println("write:", store.Write(first.Token(), "draft"))
	_ = first.Unlock(ctx)

	second, err := lock.Lock(ctx)
	if err != nil {
		panic(err)
	}
	defer second.Unlock(context.Background())
	fmt.Println("second token larger:", second.Token() > first.Token())
	fmt.Println("write:", store.Write(second.Token(), "final"))

	// A late write with the first hold's token is refused.
	fmt.Println("late write:", store.Write(first.Token(), "draft again"))
	latest, _ := lock.Token(ctx)
	fmt.Println("latest is second:", latest == second.Token())
	// Output:
	// write: <nil>
	// second token larger: true
	// write: <nil>
	// late write: stale token
	// latest is second: true
}

// TryLock with a wait and a fixed lease; a re-entry by the same owner gets a
// token of its own.
func ExampleLock_TryLock() {
	rdb := redis.NewClient(&redis.Options{Addr: os.Getenv("REDIS_ADDR")})
	defer rdb.Close()
	client, err := redisson.New(rdb)
	if err != nil {
		panic(err)
	}
	defer client.Close()
	ctx := context.Background()
	lock := client.FencedLock("example:fencedlock:report")

	h, ok, err := lock.TryLock(ctx, fencedlock.WithWait(time.Second), fencedlock.WithLease(10*time.Second))
	if err != nil || !ok {
		panic(fmt.Sprint("not acquired: ", err))
	}
	inner, err := lock.Lock(ctx, fencedlock.WithOwner(h.Owner()))
	if err != nil {
		panic(err)
	}
	n, _ := lock.HoldCount(ctx, h.Owner())
	fmt.Println("inner token larger:", inner.Token() > h.Token(), "holds:", n)
	_ = inner.Unlock(ctx)
	_ = h.Unlock(ctx)
	// Output: inner token larger: true holds: 2
}
