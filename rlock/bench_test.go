package rlock_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/redistest"
)

// BenchmarkLockUnlock: one uncontended lock+unlock pair per op.
func BenchmarkLockUnlock(b *testing.B) {
	srv := redistest.StartServer(b)
	c := newClient(b, srv)
	lock := c.Lock("bench")
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		h, err := lock.Lock(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if err := lock.Unlock(h); err != nil {
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
			holder := newClient(b, srv)
			waiter := holder
			if tc.clients == 2 {
				waiter = newClient(b, srv)
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
					wh, err := waiter.Lock("handoff").Lock(redisson.WithOwner(ctx))
					if err != nil {
						panic(err)
					}
					got <- time.Now()
					_ = waiter.Lock("handoff").Unlock(wh)
				}()
				for waiter.Stats().PubSub.Waiters == 0 {
					time.Sleep(50 * time.Microsecond)
				}
				released := time.Now()
				if err := holder.Lock("handoff").Unlock(h); err != nil {
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
