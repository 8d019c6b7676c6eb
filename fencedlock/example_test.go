package fencedlock_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/fencedlock"
	"github.com/goredisson/redisson/internal/redistest"
)

// exampleClient starts a private redis-server and returns a Client on it.
func exampleClient() (client *redisson.Client, stop func()) {
	srv, err := redistest.Start(context.Background(), redistest.Options{})
	if err != nil {
		panic(err)
	}
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr()})
	client, err = redisson.New(rdb)
	if err != nil {
		panic(err)
	}
	return client, func() {
		_ = client.Close()
		_ = rdb.Close()
		_ = srv.Stop()
	}
}

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
	client, stop := exampleClient()
	defer stop()
	ctx := context.Background()
	store := &storage{}
	lock := client.FencedLock("invoice:7")

	first, err := lock.Lock(ctx)
	if err != nil {
		panic(err)
	}
	fmt.Println("first token:", first.Token())
	fmt.Println("write:", store.Write(first.Token(), "draft"))
	_ = first.Unlock(ctx)

	second, _ := lock.Lock(ctx)
	fmt.Println("second token:", second.Token())
	fmt.Println("write:", store.Write(second.Token(), "final"))
	defer second.Unlock(ctx)

	// A late write with the first hold's token is refused.
	fmt.Println("late write:", store.Write(first.Token(), "draft again"))
	latest, _ := lock.Token(ctx)
	fmt.Println("latest token:", latest)
	// Output:
	// first token: 1
	// write: <nil>
	// second token: 2
	// write: <nil>
	// late write: stale token
	// latest token: 2
}

// TryLock with a wait and a fixed lease; a re-entry by the same owner gets a
// token of its own.
func ExampleLock_TryLock() {
	client, stop := exampleClient()
	defer stop()
	ctx := context.Background()
	lock := client.FencedLock("report")

	h, ok, err := lock.TryLock(ctx, fencedlock.WithWait(time.Second), fencedlock.WithLease(10*time.Second))
	if err != nil || !ok {
		panic(fmt.Sprint(ok, err))
	}
	inner, _ := lock.Lock(ctx, fencedlock.WithOwner(h.Owner()))
	n, _ := lock.HoldCount(ctx, h.Owner())
	fmt.Println("tokens:", h.Token(), inner.Token(), "holds:", n)
	_ = inner.Unlock(ctx)
	_ = h.Unlock(ctx)
	// Output: tokens: 1 2 holds: 2
}
