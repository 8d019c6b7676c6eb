package main

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/rlock"
)

// wakeup is one waiter's successful Lock.
type wakeup struct {
	lock int
	at   time.Time
}

// prepareWaiters: a holder client takes job.WaiterLocks locks, a waiter
// client parks job.Waiters goroutines on them (Waiters/WaiterLocks each).
func prepareWaiters(job Job) (func(goSignal) (Result, error), func(), error) {
	ctx := context.Background()
	admin := redis.NewClient(&redis.Options{Addr: job.Addr})
	holderRdb := redis.NewClient(&redis.Options{Addr: job.Addr})
	waiterRdb := redis.NewClient(&redis.Options{Addr: job.Addr})
	closeAll := func() {
		admin.Close()
		holderRdb.Close()
		waiterRdb.Close()
	}
	holder, err := redisson.New(holderRdb)
	if err != nil {
		closeAll()
		return nil, nil, err
	}
	waiter, err := redisson.New(waiterRdb)
	if err != nil {
		holder.Close()
		closeAll()
		return nil, nil, err
	}
	names := make([]string, job.WaiterLocks)
	held := make([]*rlock.Hold, job.WaiterLocks)
	for i := range names {
		names[i] = job.Key + ":" + strconv.Itoa(i)
	}
	stopAll := func() {
		waiter.Close()
		holder.Close()
		pipe := admin.Pipeline()
		for _, n := range names {
			pipe.Unlink(ctx, n)
		}
		_, _ = pipe.Exec(ctx)
		closeAll()
	}
	err = forEach(len(names), func(i int) error {
		h, err := holder.Lock(names[i]).Lock(ctx)
		held[i] = h
		return err
	})
	if err != nil {
		stopAll()
		return nil, nil, fmt.Errorf("holder: %w", err)
	}
	// Warm the waiter client's connections and scripts on a key of its own.
	if h, err := waiter.Lock(job.Key + ":warm").Lock(ctx); err != nil {
		stopAll()
		return nil, nil, err
	} else if err := h.Unlock(ctx); err != nil {
		stopAll()
		return nil, nil, err
	}

	var wg sync.WaitGroup
	woken := make(chan wakeup, job.Waiters)
	cleanup := func() {
		stopAll()
		wg.Wait()
	}
	run := func(goSignal) (Result, error) {
		runtime.GC()
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		for g := range job.Waiters {
			i := g % job.WaiterLocks
			wg.Go(func() {
				if _, err := waiter.Lock(names[i]).Lock(ctx); err == nil {
					woken <- wakeup{lock: i, at: time.Now()}
				}
			})
		}
		// Parked: every waiter registered with the hub, every channel
		// subscribed, and the process idle (the second tries are done).
		deadline := time.Now().Add(2 * time.Minute)
		for {
			s := waiter.Stats().PubSub
			if s.Waiters == job.Waiters && s.Channels == job.WaiterLocks {
				break
			}
			if time.Now().After(deadline) {
				return Result{}, fmt.Errorf("waiters did not park: %+v", s)
			}
			time.Sleep(10 * time.Millisecond)
		}
		for idle := 0; idle < 2 && time.Now().Before(deadline); {
			c0 := cpuSeconds()
			time.Sleep(100 * time.Millisecond)
			if cpuSeconds()-c0 < 0.01 {
				idle++
			} else {
				idle = 0
			}
		}
		runtime.GC()
		runtime.ReadMemStats(&m1)
		stats := waiter.Stats().PubSub
		list, err := admin.Do(ctx, "CLIENT", "LIST", "TYPE", "pubsub").Text()
		if err != nil {
			return Result{}, err
		}
		serverPubSub := 0
		for line := range strings.Lines(list) {
			if strings.TrimSpace(line) != "" {
				serverPubSub++
			}
		}
		// Wake-up latency: release one lock at a time, time until one of
		// its waiters' Lock returns. The woken waiter keeps the lock.
		var lat []float64
		for j := range min(job.Releases, job.WaiterLocks) {
			t0 := time.Now()
			if err := held[j].Unlock(ctx); err != nil {
				return Result{}, fmt.Errorf("release %d: %w", j, err)
			}
			select {
			case w := <-woken:
				if w.lock != j {
					return Result{}, fmt.Errorf("release of lock %d woke a waiter of lock %d", j, w.lock)
				}
				lat = append(lat, float64(w.at.Sub(t0).Nanoseconds())/1e6)
			case <-time.After(10 * time.Second):
				return Result{}, fmt.Errorf("release of lock %d woke nobody in 10s", j)
			}
		}
		sorted := slices.Sorted(slices.Values(lat))
		n := float64(job.Waiters)
		return Result{
			Ops:     int64(len(lat)),
			Samples: lat,
			Metrics: map[string]float64{
				"pubsub_connections":        float64(stats.Connections),
				"server_pubsub_connections": float64(serverPubSub),
				"channels":                  float64(stats.Channels),
				"waiters":                   float64(stats.Waiters),
				"heap_bytes_per_waiter":     float64(int64(m1.HeapAlloc)-int64(m0.HeapAlloc)) / n,
				"stack_bytes_per_waiter":    float64(int64(m1.StackInuse)-int64(m0.StackInuse)) / n,
				"wake_ms_p50":               percentile(sorted, 0.50),
				"wake_ms_p99":               percentile(sorted, 0.99),
				"wake_ms_max":               sorted[len(sorted)-1],
			},
		}, nil
	}
	return run, cleanup, nil
}

// percentile of sorted values (nearest rank).
func percentile(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(p*float64(len(sorted))+0.5) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}
