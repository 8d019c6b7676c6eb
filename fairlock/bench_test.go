package fairlock_test

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

// BenchmarkContended: 2 clients × 16 goroutines on one fair lock, empty
// critical section; reports the wait per acquisition (p50, p99, longest:
// fairness is the point) and top-level Redis commands per acquisition.
func BenchmarkContended(b *testing.B) {
	srv := redistest.StartServer(b)
	clients := []*redisson.Client{redissontest.ClientAt(b, srv.Addr()), redissontest.ClientAt(b, srv.Addr())}
	ctx := context.Background()
	m, err := redistest.StartMonitor(srv.Addr())
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close()
	var commands atomic.Int64
	go func() {
		for line := range m.Lines() {
			if l, ok := redistest.ParseMonitorLine(line); ok && l.TopLevel() && !l.Registration() { // records are no round trip of a lock call
				commands.Add(1)
			}
		}
	}()
	var next atomic.Int64
	total := int64(b.N)
	var mu sync.Mutex
	waits := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	var wg sync.WaitGroup
	for _, c := range clients {
		for g := 0; g < 16; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				lock := c.FairLock("contended")
				for next.Add(1) <= total {
					start := time.Now()
					h, err := lock.Lock(ctx)
					if err != nil {
						panic(err)
					}
					d := time.Since(start)
					if err := h.Unlock(ctx); err != nil {
						panic(err)
					}
					mu.Lock()
					waits = append(waits, d)
					mu.Unlock()
				}
			}()
		}
	}
	wg.Wait()
	b.StopTimer()
	time.Sleep(100 * time.Millisecond) // let MONITOR lines drain; reporting only
	slices.Sort(waits)
	b.ReportMetric(float64(waits[len(waits)/2].Microseconds()), "wait-p50-µs")
	b.ReportMetric(float64(waits[len(waits)*99/100].Microseconds()), "wait-p99-µs")
	b.ReportMetric(float64(waits[len(waits)-1].Microseconds()), "wait-max-µs")
	b.ReportMetric(float64(commands.Load())/float64(b.N), "cmds/acq")
}
