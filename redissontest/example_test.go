package redissontest_test

import (
	"context"
	"os"
	"testing"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/codec"
	"github.com/goredisson/redisson/redissontest"
)

// A test of code that uses redisson-go starts a private redis-server and
// takes a ready client of it; both go away when the test ends.
func ExampleNewServer() {
	t := &testing.T{} // the test's *testing.T
	srv := redissontest.NewServer(t)
	c := srv.Client(t)

	err := Transfer(t.Context(), RedissonLocker{Client: c}, map[string]int{"alice": 100}, "alice", "bob", 30)
	if err != nil {
		t.Fatal(err)
	}
	// The lock is released: its key is gone.
	if n := srv.Redis(t).Exists(t.Context(), "account:alice").Val(); n != 0 {
		t.Fatalf("the lock key is still there")
	}
}

// WithArgs passes redis-server arguments, such as a memory limit for a test
// of what the code does when Redis is full.
func ExampleWithArgs() {
	t := &testing.T{} // the test's *testing.T
	srv := redissontest.NewServer(t, redissontest.WithArgs("--maxmemory", "1mb", "--maxmemory-policy", "noeviction"))
	_ = srv.Client(t)
}

// Kill and Restart show what the code under test does while Redis is down.
func ExampleServer_Kill() {
	t := &testing.T{} // the test's *testing.T
	srv := redissontest.NewServer(t)
	c := srv.Client(t)
	srv.Kill(t)
	if _, err := c.Lock("l").Lock(t.Context()); err == nil {
		t.Fatal("locked while Redis is down")
	}
	srv.Restart(t)
}

// A cluster of three masters spreads the objects' keys over three nodes.
func ExampleNewCluster() {
	t := &testing.T{} // the test's *testing.T
	cl := redissontest.NewCluster(t)
	c := cl.Client(t)
	m := redisson.NewMap[string, string](c, "prices", codec.String())
	if _, _, err := m.Put(t.Context(), "apple", "3"); err != nil {
		t.Fatal(err)
	}
}

// A primary with replicas: the locks of a Client send WAIT after their
// writes, as Redisson's do, and fail when no replica acknowledged them.
func ExampleNewReplicated() {
	t := &testing.T{} // the test's *testing.T
	r := redissontest.NewReplicated(t, 1)
	c := r.Client(t)
	h, err := c.Lock("l").Lock(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer h.Unlock(context.WithoutCancel(t.Context()))
	// Read what the replica holds with a client of its own.
	_ = r.Replicas()[0].Redis(t)
}

// ClientAt connects to a Redis this package did not start, such as one a CI
// job provides.
func ExampleClientAt() {
	t := &testing.T{} // the test's *testing.T
	addr := os.Getenv("REDIS_ADDR")
	if addr == "" {
		addr = redissontest.NewServer(t).Addr()
	}
	c := redissontest.ClientAt(t, addr)
	_ = c.AtomicLong("counter")
}
