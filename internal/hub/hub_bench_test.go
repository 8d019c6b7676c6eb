package hub_test

import (
	"context"
	"strconv"
	"testing"

	"github.com/goredisson/redisson/internal/hub"
	"github.com/goredisson/redisson/internal/redistest"
)

// benchHub returns a hub over a fresh redis-server, closed at cleanup.
func benchHub(b *testing.B) *hub.Hub {
	b.Helper()
	srv := redistest.StartServer(b)
	rdb := redistest.Client(b, srv)
	h := hub.New(hub.Config{Client: rdb})
	b.Cleanup(h.Close)
	return h
}

// BenchmarkSubscribeExisting is one Subscribe+Close on a channel that already
// has a confirmed waiter: no Redis traffic, only the hub's bookkeeping.
func BenchmarkSubscribeExisting(b *testing.B) {
	h := benchHub(b)
	ctx := context.Background()
	first, err := h.Subscribe(ctx, "bench:existing", hub.LockPolicy)
	if err != nil {
		b.Fatal(err)
	}
	defer first.Close(false)
	b.ReportAllocs()
	for b.Loop() {
		w, err := h.Subscribe(ctx, "bench:existing", hub.LockPolicy)
		if err != nil {
			b.Fatal(err)
		}
		w.Close(false)
	}
}

// BenchmarkSubscribeNew is the first waiter of a channel: Subscribe sends
// SUBSCRIBE and waits for Redis' confirmation (one round trip); Close queues
// the UNSUBSCRIBE, which the hub sends in the background.
func BenchmarkSubscribeNew(b *testing.B) {
	h := benchHub(b)
	ctx := context.Background()
	names := make([]string, 1024)
	for i := range names {
		names[i] = "bench:new:" + strconv.Itoa(i)
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		w, err := h.Subscribe(ctx, names[i%len(names)], hub.LockPolicy)
		if err != nil {
			b.Fatal(err)
		}
		w.Close(false)
	}
}
