package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/keys"
	"github.com/goredisson/redisson/ratelimit"
	"github.com/goredisson/redisson/redissontest"
)

// TestObserverCatchesOverlap: the gauge and the counter do report an
// overlap, so the zero violations of the other tests mean something.
func TestObserverCatchesOverlap(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	require.NoError(t, enter(ctx, e.obs, "o", "x", 1))
	require.NoError(t, enter(ctx, e.obs, "o", "x", 1))
	for range 3 {
		require.NoError(t, enter(ctx, e.obs, "p", "p", 2))
	}
	require.NoError(t, enter(ctx, e.obs, "rw", "r", 1))
	require.NoError(t, enter(ctx, e.obs, "rw", "w", 1))
	for name, want := range map[string]int64{"o": 1, "p": 1, "rw": 1} {
		g, err := gaugeStats(ctx, e.obs, name)
		require.NoError(t, err)
		require.Equal(t, want, g["violations"], name)
	}
	require.NoError(t, fence(ctx, e.obs, "f", 5))
	require.NoError(t, fence(ctx, e.obs, "f", 7))
	require.NoError(t, fence(ctx, e.obs, "f", 7))
	require.NoError(t, fence(ctx, e.obs, "f", 6))
	g, err := gaugeStats(ctx, e.obs, "f")
	require.NoError(t, err)
	require.Equal(t, int64(2), g["token_violations"])
	v, err := e.obs.Get(ctx, counterKey("o")).Result()
	require.Error(t, err, "no counter yet: %s", v)
	require.NoError(t, bump(ctx, e.obs, "o"))
	require.NoError(t, bump(ctx, e.obs, "o"))
	n, err := e.obs.Get(ctx, counterKey("o")).Int()
	require.NoError(t, err)
	require.Equal(t, 2, n)
}

// TestFairQueueOrder: waiters in separate processes, queued one after the
// other behind a holder, get the fair lock in the order they queued.
func TestFairQueueOrder(t *testing.T) {
	n := 3
	if full() {
		n = 6
	}
	e := newEnv(t)
	ctx := context.Background()
	c := redissontest.ClientAt(t, e.srv.Addr())
	name := "fair-order"
	h, err := c.FairLock(name).Lock(ctx)
	require.NoError(t, err)
	ws := make([]*worker, n)
	for i := range ws {
		ws[i] = startWorker(t, job{Mode: "hold", Addr: e.srv.Addr(), Observer: e.obsSrv.Addr(), Kinds: []string{"FairLock"},
			Name: name, Label: strconv.Itoa(i)})
		ws[i].expect("waiting", 30*time.Second)
		redistest.Eventually(t, 30*time.Second, fmt.Sprintf("waiter %d queued", i), func() bool {
			return e.raw.LLen(ctx, keys.FairLockQueue(name)).Val() == int64(i+1)
		})
	}
	require.NoError(t, h.Unlock(ctx))
	for _, w := range ws {
		w.expect("acquired", 30*time.Second)
		w.closeStdin()
		w.expect("released", 30*time.Second)
	}
	got, err := e.obs.LRange(ctx, "order:"+name, 0, -1).Result()
	require.NoError(t, err)
	want := make([]string, n)
	for i := range want {
		want[i] = strconv.Itoa(i)
	}
	violations := 0
	for i := range want {
		if i >= len(got) || got[i] != want[i] {
			violations++
		}
	}
	record("contention", "FairLock (queue order)", violations, "%d waiters in %d processes acquired in queue order %v", n, n, got)
	require.Equal(t, want, got)
}

// TestLatchReleasesEveryWaiter: waiters in several processes and clients
// all return once the count reaches zero.
func TestLatchReleasesEveryWaiter(t *testing.T) {
	testLatch(t, false)
}

// testLatch arms a latch, starts waiters in two processes, optionally kills
// every pub/sub connection while they wait, counts down and checks that
// every waiter returns.
func testLatch(t *testing.T, killPubSub bool) {
	procs, clients, goroutines := 2, 2, 2
	e := newEnv(t)
	ctx := context.Background()
	c := redissontest.ClientAt(t, e.srv.Addr())
	name := "latch"
	l := c.CountDownLatch(name)
	ok, err := l.TrySetCount(ctx, 3)
	require.NoError(t, err)
	require.True(t, ok)
	ws := make([]*worker, procs)
	for i := range ws {
		ws[i] = startWorker(t, job{Mode: "await", Addr: e.srv.Addr(), Name: name, Clients: clients, Goroutines: goroutines})
		ws[i].expect("waiting", 30*time.Second)
	}
	// Every client of every process is subscribed (one subscription per
	// client, whatever its number of waiters).
	redistest.Eventually(t, 30*time.Second, "waiters subscribed", func() bool {
		return redistest.NumSub(t, e.raw, "redisson_countdownlatch__channel__{"+name+"}") == int64(procs*clients)
	})
	fault := "contention"
	if killPubSub {
		fault = "CLIENT KILL TYPE pubsub"
		require.NoError(t, e.raw.ClientKillByFilter(ctx, "TYPE", "pubsub").Err())
	}
	for range 3 {
		require.NoError(t, l.CountDown(ctx))
	}
	opened := time.Now()
	var last time.Time
	for _, w := range ws {
		for range clients * goroutines {
			ev := w.expect("opened", 30*time.Second)
			if ev.at.After(last) {
				last = ev.at
			}
		}
	}
	record(fault, "CountDownLatch", 0, "%d waiters in %d processes all released, the last %d ms after the count reached 0",
		procs*clients*goroutines, procs, max(last.Sub(opened), 0).Milliseconds())
}

// rateJob: every goroutine takes Ops permits of the limiter Name one by
// one and reports the [before, after] nanos of each acquisition.
func rateJob(j job, cs []*redisson.Client) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var mu sync.Mutex
	var spans [][2]int64
	var wg sync.WaitGroup
	errs := make(chan error, len(cs)*j.Goroutines)
	for _, c := range cs {
		for range j.Goroutines {
			wg.Go(func() {
				l := c.RateLimiter(j.Name)
				for range j.Ops {
					before := time.Now().UnixNano()
					if err := l.Acquire(ctx, 1); err != nil {
						errs <- err
						return
					}
					after := time.Now().UnixNano()
					mu.Lock()
					spans = append(spans, [2]int64{before, after})
					mu.Unlock()
				}
			})
		}
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return err
	}
	b, _ := json.Marshal(spans)
	report("done", string(b))
	return nil
}

// rateViolations counts the windows in which more than rate acquisitions
// certainly happened: rate+1 acquisitions whose [before, after] spans all
// fit in less than interval less 1 ms. Clocks are one machine's, so no
// acquisition can have happened outside its span; the 1 ms is the
// limiter's resolution: its scripts get the time in whole milliseconds
// (Redisson's protocol), so a grant at 10.9 ms is stamped 10 and the next
// allowed one, stamped 510, may come 499.1 ms after it in real time. It
// also returns the tightest such window seen (0 with fewer than rate+1
// acquisitions).
func rateViolations(spans [][2]int64, rate int, interval time.Duration) (int, time.Duration) {
	sort.Slice(spans, func(i, j int) bool { return spans[i][0] < spans[j][0] })
	bad := 0
	var tightest time.Duration
	for i := range spans {
		var afters []int64
		for _, s := range spans[i:] {
			afters = append(afters, s[1])
		}
		if len(afters) <= rate {
			break
		}
		sort.Slice(afters, func(a, b int) bool { return afters[a] < afters[b] })
		w := time.Duration(afters[rate] - spans[i][0])
		if tightest == 0 || w < tightest {
			tightest = w
		}
		if w < interval-time.Millisecond {
			bad++
		}
	}
	return bad, tightest
}

// TestRateLimiterAcrossProcesses: processes and clients taking permits of
// one limiter never get more than the rate in any window.
func TestRateLimiterAcrossProcesses(t *testing.T) {
	procs, clients, goroutines, ops := 2, 2, 2, 3
	if full() {
		procs, clients, goroutines, ops = 3, 2, 2, 5
	}
	const rate, interval = 4, 500 * time.Millisecond
	e := newEnv(t)
	ctx := context.Background()
	c := redissontest.ClientAt(t, e.srv.Addr())
	name := "limiter"
	ok, err := c.RateLimiter(name).TrySetRate(ctx, ratelimit.Overall, rate, interval)
	require.NoError(t, err)
	require.True(t, ok)
	start := time.Now()
	ws := make([]*worker, procs)
	for i := range ws {
		ws[i] = startWorker(t, job{Mode: "ratelimit", Addr: e.srv.Addr(), Name: name, Clients: clients, Goroutines: goroutines, Ops: ops})
	}
	var spans [][2]int64
	for _, w := range ws {
		ev := w.expect("done", 5*time.Minute)
		var s [][2]int64
		require.NoError(t, json.Unmarshal([]byte(ev.detail), &s))
		spans = append(spans, s...)
	}
	took := time.Since(start)
	n := procs * clients * goroutines * ops
	require.Len(t, spans, n)
	bad, tightest := rateViolations(spans, rate, interval)
	record("contention", "RateLimiter", bad, "%d acquisitions by %d procs x %d clients x %d goroutines at %d per %v in %.1f s (at least %.1f s due), %d windows over the rate; the shortest real time holding %d acquisitions: %.1f ms",
		n, procs, clients, goroutines, rate, interval, took.Seconds(), float64((n-1)/rate)*interval.Seconds(), bad, rate+1, float64(tightest)/float64(time.Millisecond))
	require.Zero(t, bad, "windows over the rate (the shortest holding %d acquisitions: %v)", rate+1, tightest)
	// And the check does see an excess: rate+1 spans within one interval.
	fake := make([][2]int64, rate+1)
	for i := range fake {
		fake[i] = [2]int64{int64(i) * int64(time.Millisecond), int64(i+1) * int64(time.Millisecond)}
	}
	fakeBad, _ := rateViolations(fake, rate, interval)
	require.Equal(t, 1, fakeBad)
}
