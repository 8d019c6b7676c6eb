package dashboard

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/cli/ls"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/rlock"
)

// server starts a redis-server for the test and returns its URL and a client.
func server(t *testing.T) (string, *redis.Client) {
	t.Helper()
	s := redistest.StartServer(t)
	return "redis://" + s.Addr(), redistest.Client(t, s)
}

// holdLock takes name through the library and returns the holder's context
// and client.
func holdLock(t *testing.T, rdb redis.UniversalClient, name string) (*rlock.Hold, *redisson.Client) {
	t.Helper()
	client, err := redisson.New(rdb)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	h, err := client.Lock(name).Lock(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return h, client
}

// subscribe keeps a connection subscribed to channel until the test ends.
func subscribe(t *testing.T, rdb redis.UniversalClient, channel string) {
	t.Helper()
	ps := rdb.Subscribe(context.Background(), channel)
	t.Cleanup(func() { ps.Close() })
	if _, err := ps.Receive(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// waitFor polls cond until it holds, failing the test after timeout.
func waitFor(t *testing.T, timeout time.Duration, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		ok, desc := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s (last: %s)", timeout, what, desc)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// lsNames lists the objects' names.
func lsNames(res ls.Result) string {
	var n []string
	for _, o := range res.Objects {
		n = append(n, o.Name)
	}
	return strings.Join(n, " ")
}
