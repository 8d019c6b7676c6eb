package renewal

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

func benchClient(b *testing.B) *redis.Client {
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"}) // never dialled: the fake queues nothing
	b.Cleanup(func() { _ = c.Close() })
	return c
}

func BenchmarkAdd(b *testing.B) {
	w := New(Config{Client: benchClient(b)})
	defer w.Close()
	k := &fakeKind{}
	onLost := func(error) {}
	start := time.Now()
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		w.Add(Spec{Key: "k", Kind: k, TTL: time.Duration(60+i%600) * time.Second, Start: start, OnLost: onLost})
	}
}

func BenchmarkAddCancel(b *testing.B) {
	w := New(Config{Client: benchClient(b)})
	defer w.Close()
	k := &fakeKind{}
	onLost := func(error) {}
	start := time.Now()
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		w.Cancel(w.Add(Spec{Key: "k", Kind: k, TTL: time.Duration(60+i%600) * time.Second, Start: start, OnLost: onLost}))
	}
}

// benchKind renews everything without recording, so that the benchmark
// measures the wheel.
type benchKind struct{ ok []bool }

func (k *benchKind) Queue(_ context.Context, _ redis.Pipeliner, _ time.Duration, leases []*Lease) func() ([]bool, error) {
	return func() ([]bool, error) { return k.ok[:len(leases)], nil }
}

// BenchmarkTick measures one tick with 10 000 leases due: collecting them,
// grouping into 100 scripts, the (empty) pipeline and rescheduling. The
// wheel is driven by hand with a simulated clock, without its goroutine.
func BenchmarkTick(b *testing.B) { benchTick(b, 1) }

// BenchmarkTickCluster is BenchmarkTick with the leases spread over 1024
// cluster slots (about 10 per script).
func BenchmarkTickCluster(b *testing.B) { benchTick(b, 1024) }

func benchTick(b *testing.B, slots int) {
	const n = 10_000
	const ttl = 30 * time.Second
	cfg := Config{Client: benchClient(b)}
	if slots > 1 {
		cfg.Slot = func(key string) int { i, _ := strconv.Atoi(key); return i % slots }
	}
	w := newWheel(cfg)
	defer w.Close()
	k := &benchKind{ok: all(100, true)}
	onLost := func(error) {}
	for i := range n {
		w.Add(Spec{Key: strconv.Itoa(i), Kind: k, TTL: ttl, Start: w.epoch, OnLost: onLost})
	}
	now := int64(ttl / 3)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		w.mu.Lock()
		r, lost := w.collect(now, nil)
		w.wg.Add(1)
		w.mu.Unlock()
		if r == nil || len(r.leases) != n || len(lost) != 0 {
			b.Fatalf("round %v, lost %d", r, len(lost))
		}
		w.runRound(r)
		now += int64(ttl / 3) // everything renewed at now is due again then
	}
	b.StopTimer()
	if st := w.Stats(); st.Renewed != uint64(b.N*n) {
		b.Fatalf("stats %+v", st)
	}
}
