package rlock_test

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/redissontest"
)

// BenchmarkLockUnlock: one uncontended lock+unlock pair per op.
func BenchmarkLockUnlock(b *testing.B) {
	srv := redistest.StartServer(b)
	c := redissontest.ClientAt(b, srv.Addr())
	lock := c.Lock("bench")
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		h, err := lock.Lock(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if err := h.Unlock(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkHandOff measures the time from Unlock to the return of a waiter's
// Lock, within one client and across two clients; reports the median.
func BenchmarkHandOff(b *testing.B) {
	for _, tc := range []struct {
		name    string
		clients int
	}{{"same-client", 1}, {"two-clients", 2}} {
		b.Run(tc.name, func(b *testing.B) {
			srv := redistest.StartServer(b)
			holder := redissontest.ClientAt(b, srv.Addr())
			waiter := holder
			if tc.clients == 2 {
				waiter = redissontest.ClientAt(b, srv.Addr())
			}
			ctx := context.Background()
			var samples []time.Duration
			for b.Loop() {
				h, err := holder.Lock("handoff").Lock(ctx)
				if err != nil {
					b.Fatal(err)
				}
				got := make(chan time.Time, 1)
				go func() {
					wh, err := waiter.Lock("handoff").Lock(ctx)
					if err != nil {
						panic(err)
					}
					got <- time.Now()
					_ = wh.Unlock(ctx)
				}()
				for waiter.Stats().PubSub.Waiters == 0 {
					time.Sleep(50 * time.Microsecond)
				}
				released := time.Now()
				if err := h.Unlock(ctx); err != nil {
					b.Fatal(err)
				}
				samples = append(samples, (<-got).Sub(released))
				for waiter.Stats().PubSub.Waiters != 0 {
					time.Sleep(50 * time.Microsecond)
				}
			}
			slices.Sort(samples)
			b.ReportMetric(float64(samples[len(samples)/2].Microseconds()), "p50-µs")
			b.ReportMetric(float64(samples[len(samples)*99/100].Microseconds()), "p99-µs")
		})
	}
}

// BenchmarkContended: 2 clients × 16 goroutines on one lock, empty critical
// section; reports top-level Redis commands per acquisition (MONITOR).
func BenchmarkContended(b *testing.B) {
	srv := redistest.StartServer(b)
	clients := []*redisson.Client{redissontest.ClientAt(b, srv.Addr()), redissontest.ClientAt(b, srv.Addr())}
	ctx := context.Background()
	m, err := redistest.StartMonitor(srv.Addr())
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close()
	var commands, scripts atomic.Int64
	go func() {
		for line := range m.Lines() {
			if l, ok := redistest.ParseMonitorLine(line); ok && l.TopLevel() && !l.Registration() { // records are no round trip of a lock call
				commands.Add(1)
				if l.Command == "evalsha" {
					scripts.Add(1)
				}
			}
		}
	}()
	var next atomic.Int64
	total := int64(b.N)
	b.ResetTimer()
	var wg sync.WaitGroup
	for _, c := range clients {
		for g := 0; g < 16; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				lock := c.Lock("contended")
				for next.Add(1) <= total {
					h, err := lock.Lock(ctx)
					if err != nil {
						panic(err)
					}
					if err := h.Unlock(ctx); err != nil {
						panic(err)
					}
				}
			}()
		}
	}
	wg.Wait()
	b.StopTimer()
	time.Sleep(100 * time.Millisecond) // let MONITOR lines drain; reporting only
	b.ReportMetric(float64(commands.Load())/float64(b.N), "cmds/acq")
	b.ReportMetric(float64(scripts.Load())/float64(b.N), "scripts/acq")
}

// BenchmarkLockUnlockDeadline is BenchmarkLockUnlock under a context whose
// deadline comes before go-redis' ReadTimeout, so every call must be bounded
// by it. The context is renewed every 500 pairs, well before it ends.
func BenchmarkLockUnlockDeadline(b *testing.B) {
	srv := redistest.StartServer(b)
	c := redissontest.ClientAt(b, srv.Addr())
	lock := c.Lock("bench")
	var ctx context.Context
	var cancel context.CancelFunc = func() {}
	n := 0
	b.ReportAllocs()
	for b.Loop() {
		if n%500 == 0 {
			cancel()
			ctx, cancel = context.WithTimeout(context.Background(), 2*time.Second)
		}
		n++
		h, err := lock.Lock(ctx)
		if err != nil {
			cancel()
			b.Fatal(err)
		}
		if err := h.Unlock(ctx); err != nil {
			cancel()
			b.Fatal(err)
		}
	}
	cancel()
}
