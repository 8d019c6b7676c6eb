package multilock_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/keys"
	"github.com/goredisson/redisson/multilock"
	"github.com/goredisson/redisson/rlock"
)

// Several locks of any kind taken as one: all of them or none.
func Example() {
	rdb := redis.NewClient(&redis.Options{Addr: os.Getenv("REDIS_ADDR")})
	defer rdb.Close()
	client, err := redisson.New(rdb)
	if err != nil {
		panic(err)
	}
	defer client.Close()
	ctx := context.Background()

	m := multilock.New(
		client.Lock("example:multilock:account:1"),
		client.Lock("example:multilock:account:2"),
		client.ReadWriteLock("example:multilock:ledger").ReadLock(),
	)
	h, err := m.Lock(ctx) // waits; ctx bounds the wait
	if err != nil {
		panic(err)
	}
	defer h.Unlock(context.Background()) // releases every member

	fmt.Println("held:", h.Held())
	// Work under h.Context(): it is done if any member is lost.
	fmt.Println("lost:", h.Err() != nil)
	// Output:
	// held: [example:multilock:account:1 example:multilock:account:2 example:multilock:ledger]
	// lost: false
}

// A RedLock over independent Redis servers, one Client each (their
// addresses, comma-separated, in REDLOCK_ADDRS): a majority suffices. With
// a fixed lease the hold's Done channel closes at the end of its validity.
func ExampleNewRedLock() {
	ctx := context.Background()
	var members []*rlock.Lock
	for _, addr := range strings.Split(os.Getenv("REDLOCK_ADDRS"), ",") {
		rdb := redis.NewClient(&redis.Options{Addr: addr})
		defer rdb.Close()
		client, err := redisson.New(rdb)
		if err != nil {
			panic(err)
		}
		defer client.Close()
		members = append(members, client.Lock("example:multilock:job"))
	}

	rl := multilock.NewRedLock(members[0], members[1], members[2])
	h, ok, err := rl.TryLock(ctx, multilock.WithWait(time.Second), multilock.WithLease(10*time.Second))
	if err != nil || !ok {
		panic(fmt.Sprint("not acquired: ", err))
	}
	defer h.Unlock(context.Background())
	// Every server that answered in time is held; a quorum at least.
	fmt.Println("quorum:", rl.Quorum(), "held a quorum:", len(h.Held()) >= rl.Quorum())
	// Output: quorum: 2 held a quorum: true
}

// The group multi-lock: many values of one group in one hash, locked at
// once.
func ExampleGroup() {
	rdb := redis.NewClient(&redis.Options{Addr: os.Getenv("REDIS_ADDR")})
	defer rdb.Close()
	client, err := redisson.New(rdb)
	if err != nil {
		panic(err)
	}
	defer client.Close()
	ctx := context.Background()

	g := client.MultiLockGroup("example:multilock:seats:flight-42", "12A", "12B", "12C")
	h, ok, err := g.TryLock(ctx, multilock.WithWait(time.Second))
	if err != nil || !ok {
		panic(fmt.Sprint("not acquired: ", err))
	}
	other, ok, _ := client.MultiLockGroup("example:multilock:seats:flight-42", "12C", "12D").TryLock(ctx)
	fmt.Println("overlapping set taken:", ok, other != nil)
	if err := h.Unlock(ctx); err != nil {
		panic(err)
	}
	fmt.Println("field id of 12A:", keys.GroupMultiLockField([]byte("12A")) == g.FieldIDs()[0])
	// Output:
	// overlapping set taken: false false
	// field id of 12A: true
}
