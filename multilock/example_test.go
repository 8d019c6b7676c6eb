package multilock_test

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/multilock"
)

// exampleClient starts a private redis-server and returns a Client on it.
func exampleClient() (*redisson.Client, func()) {
	srv, err := redistest.Start(context.Background(), redistest.Options{})
	if err != nil {
		panic(err)
	}
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr()})
	client, err := redisson.New(rdb)
	if err != nil {
		panic(err)
	}
	return client, func() {
		_ = client.Close()
		_ = rdb.Close()
		_ = srv.Stop()
	}
}

// Several locks of any kind taken as one: all of them or none.
func Example() {
	client, stop := exampleClient()
	defer stop()
	ctx := context.Background()

	m := multilock.New(
		client.Lock("account:1"),
		client.Lock("account:2"),
		client.ReadWriteLock("ledger").ReadLock(),
	)
	h, err := m.Lock(ctx) // waits; ctx bounds the wait
	if err != nil {
		panic(err)
	}
	defer h.Unlock(ctx) // releases every member

	fmt.Println("held:", h.Held())
	// Work under h.Context(): it is done if any member is lost.
	fmt.Println("lost:", h.Err() != nil)
	// Output:
	// held: [account:1 account:2 ledger]
	// lost: false
}

// A RedLock over independent Redis servers (here three clients of one
// server, for the example): a majority suffices. With a fixed lease the
// hold's Done channel closes at the end of its validity.
func ExampleNewRedLock() {
	c1, stop1 := exampleClient()
	defer stop1()
	c2, stop2 := exampleClient()
	defer stop2()
	c3, stop3 := exampleClient()
	defer stop3()
	ctx := context.Background()

	rl := multilock.NewRedLock(c1.Lock("job"), c2.Lock("job"), c3.Lock("job"))
	h, ok, err := rl.TryLock(ctx, multilock.WithWait(time.Second), multilock.WithLease(10*time.Second))
	if err != nil || !ok {
		panic(fmt.Sprint("not acquired: ", err))
	}
	defer h.Unlock(ctx)
	fmt.Println("quorum:", rl.Quorum(), "held:", len(h.Held()))
	// Output: quorum: 2 held: 3
}

// The group multi-lock: many values of one group in one hash, locked at
// once.
func ExampleGroup() {
	client, stop := exampleClient()
	defer stop()
	ctx := context.Background()

	g := client.MultiLockGroup("seats:flight-42", "12A", "12B", "12C")
	h, ok, err := g.TryLock(ctx, multilock.WithWait(time.Second))
	if err != nil || !ok {
		panic(fmt.Sprint("not acquired: ", err))
	}
	other, ok, _ := client.MultiLockGroup("seats:flight-42", "12C", "12D").TryLock(ctx)
	fmt.Println("overlapping set taken:", ok, other != nil)
	if err := h.Unlock(ctx); err != nil {
		panic(err)
	}
	fmt.Println("field id of 12A:", multilock.FieldID([]byte("12A")) == g.FieldIDs()[0])
	// Output:
	// overlapping set taken: false false
	// field id of 12A: true
}
