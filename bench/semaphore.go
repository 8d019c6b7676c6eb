package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson"
)

// Issue #10's semaphore group: contended acquire/release pairs and wake-up
// latency.

const (
	libSem = "redisson-go semaphore" // client.Semaphore(name).AcquirePermits(ctx, 1)

	grpSem = "Semaphore: redisson-go RSemaphore, contended (#10)"

	scSem = "semaphore" // worker scenario
)

func init() {
	groupBases[grpSem] = [2]string{libSem, "ours"}
	register(scenarioDef{Name: "semaphore", Run: (*Runner).semaphore, Libs: []string{libSem},
		Workers: map[string]prepareFunc{scSem: prepareSem}, Evaluate: evaluateSem})
}

// semaphore runs Procs × Goroutines goroutines taking one permit each of a
// semaphore of SemPermits permits, releasing it at once.
func (r *Runner) semaphore(ctx context.Context) error {
	p := r.cfg.SemPermits
	name := fmt.Sprintf("semaphore, %d permits, %d processes × %d goroutines", p, r.cfg.Procs, r.cfg.Goroutines)
	return r.rounds([]string{libSem}, func(round int, lib string) error {
		counterFile, err := createSharedCounter(r.tmp)
		if err != nil {
			return err
		}
		defer os.Remove(counterFile)
		key := r.key("sem", lib)
		jobs := make([]Job, r.cfg.Procs)
		for i := range jobs {
			jobs[i] = Job{Scenario: scSem, Lib: lib, Addr: r.cfg.Addr, Key: key, Ops: r.cfg.Ops, OpsTimeout: r.cfg.OpsTimeout,
				Goroutines: r.cfg.Goroutines, Process: i, Counter: counterFile, Params: map[string]float64{"permits": float64(p)}}
		}
		s, err := r.spawn(ctx, jobs, runSpec{duration: r.duration(r.cfg.ContendedDuration)})
		if err != nil {
			return err
		}
		st := analyzeSemaphore(s, p)
		left, err := r.admin.Get(ctx, key).Int()
		if err != nil {
			return fmt.Errorf("permits after the run: %w", err)
		}
		r.report.add(grpSem, name, "acquire+release pairs/s", lib, higher, st.rate)
		r.report.add(grpSem, name, "wake-up after release p50 (ms)", lib, lower, st.wakeP50)
		r.report.add(grpSem, name, "wake-up after release p99 (ms)", lib, lower, st.wakeP99)
		r.report.add(grpSem, name, "acquisitions that waited (%)", lib, "neither", st.waitedPct)
		r.report.add(grpSem, name, "longest wait (ms)", lib, lower, st.longestWait)
		r.addCPUTo(grpSem, name, "pair", lib, s, float64(st.pairs))
		if r.cfg.Ops > 0 {
			r.report.addAgg(grpSem, name, "stalled acquire calls (by op count)", lib, lower, aggMax, float64(st.cutOff))
		}
		r.report.addAgg(grpSem, name, "holders above the permits (shared gauge)", lib, lower, aggMax, st.over)
		r.report.addAgg(grpSem, name, "permits lost or created", lib, lower, aggMax, float64(abs(left-p)))
		r.logf("semaphore     round %d %-22s %8.0f pairs/s  wake-up p50 %.3f ms p99 %.3f ms (%d wake-ups)  longest wait %.1f ms  over %.0f  permits left %d of %d",
			round, lib, st.rate, st.wakeP50, st.wakeP99, st.wakeups, st.longestWait, st.over, left, p)
		if st.pairs == 0 {
			return errors.New("no acquisitions")
		}
		return nil
	})
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

// semStats are the figures of one semaphore run.
type semStats struct {
	pairs, cutOff, wakeups int64
	rate, wakeP50, wakeP99 float64 // ms
	waitedPct, longestWait float64
	over                   float64
}

// analyzeSemaphore merges the processes' events {call, return, release}.
// With p permits, the k-th acquisition in return order (from 0) needs at
// least k+1-p releases before it, so the (k-p)-th release (in release
// order) is the one that freed its permit; if the acquisition was called
// before that release, it waited for it, and its wake-up latency is its
// return minus that release.
func analyzeSemaphore(s *spawned, p int) semStats {
	var st semStats
	var events [][3]int64
	secs := 0.0
	for _, res := range s.results {
		events = append(events, res.Events...)
		st.pairs += res.Ops
		st.cutOff += int64(len(res.Unfinished))
		secs = max(secs, res.Seconds)
		st.over = max(st.over, res.Metrics["over"])
	}
	if secs > 0 {
		st.rate = float64(st.pairs) / secs
	}
	slices.SortFunc(events, func(a, b [3]int64) int { return cmpInt64(a[1], b[1]) })
	rels := make([]int64, len(events))
	for i, e := range events {
		rels[i] = e[2]
		st.longestWait = max(st.longestWait, float64(e[1]-e[0])/1e6)
	}
	slices.Sort(rels)
	var wakes []float64
	for k := p; k < len(events); k++ {
		freed := rels[k-p]
		if events[k][0] < freed && events[k][1] >= freed {
			wakes = append(wakes, float64(events[k][1]-freed)/1e6)
		}
	}
	slices.Sort(wakes)
	st.wakeups = int64(len(wakes))
	st.wakeP50, st.wakeP99 = percentile(wakes, 0.5), percentile(wakes, 0.99)
	if len(events) > 0 {
		st.waitedPct = 100 * float64(len(wakes)) / float64(len(events))
	}
	return st
}

// evaluateSem checks that no run admitted more holders than permits or
// lost or created a permit.
func evaluateSem(rep *Report) {
	for _, m := range rep.Measurements {
		if m.Group == grpSem && (m.Metric == "holders above the permits (shared gauge)" || m.Metric == "permits lost or created") {
			rep.Targets = append(rep.Targets, Target{Name: fmt.Sprintf("%s (%s; semaphore)", m.Metric, m.Lib), Want: "0",
				Got: formatNum(m.Value), Pass: m.Value == 0})
		}
	}
}

// prepareSem opens the client, sets the permits (TrySetPermits: the first
// process sets them) and warms up on a semaphore of its own.
func prepareSem(job Job) (func(goSignal) (Result, error), func(), error) {
	rec := &addrRecorder{}
	rdb := redis.NewClient(goRedisOptions(job.Addr, rec))
	// The library's warnings (a permit it could not give back, an acquire
	// without reply) go to the runner's log.
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	c, err := redisson.New(rdb, redisson.WithLogger(logger))
	if err != nil {
		rdb.Close()
		return nil, nil, err
	}
	shared, err := openSharedCounter(job.Counter)
	if err != nil {
		c.Close()
		rdb.Close()
		return nil, nil, err
	}
	cleanup := func() {
		c.Close()
		rdb.Close()
		shared.close()
	}
	permits := int(job.Params["permits"])
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	warm := c.Semaphore(fmt.Sprintf("%s:warm:%d", job.Key, job.Process))
	err = func() error {
		if _, err := warm.TrySetPermits(ctx, job.Goroutines); err != nil {
			return err
		}
		var wg sync.WaitGroup
		errs := make([]error, job.Goroutines)
		for g := range job.Goroutines {
			wg.Go(func() {
				for range 3 {
					p, err := warm.AcquirePermits(ctx, 1)
					if err == nil {
						err = p.Release(ctx)
					}
					if err != nil {
						errs[g] = err
						return
					}
				}
			})
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			return err
		}
		_, err := c.Semaphore(job.Key).TrySetPermits(ctx, permits)
		return err
	}()
	if err != nil {
		cleanup()
		return nil, nil, fmt.Errorf("warm-up: %w", err)
	}
	run := func(sig goSignal) (Result, error) {
		r, err := runSem(job, sig, c, shared, permits)
		r.Addrs = rec.list()
		return r, err
	}
	return run, cleanup, nil
}

// runSem: every goroutine acquires one permit and releases it at once,
// recording {call, return, release}; a gauge in the shared page counts the
// holders of all processes (raised after acquire returns, lowered before
// release is sent, so it never counts more than really hold).
func runSem(job Job, sig goSignal, c *redisson.Client, shared *sharedCounter, permits int) (Result, error) {
	end := time.Unix(0, sig.End)
	if sig.End == 0 {
		end = time.Unix(0, sig.Start).Add(cmp.Or(job.OpsTimeout, time.Minute))
	}
	ctx, cancel := context.WithDeadline(context.Background(), end)
	defer cancel()
	var claimed atomic.Int64
	claim := func() bool {
		if job.Ops > 0 {
			return claimed.Add(1) <= int64(job.Ops)
		}
		return ctx.Err() == nil
	}
	sem := c.Semaphore(job.Key)
	inFlight := shared.gauge(1)
	var over atomic.Int64
	n := job.Goroutines
	events := make([][][3]int64, n)
	unfinished := make([]int64, n)
	errs := make([]error, n)
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	begin, cpu0 := time.Now(), cpuSeconds()
	var wg sync.WaitGroup
	for g := range n {
		wg.Go(func() {
			for claim() {
				call := time.Now().UnixNano()
				p, err := sem.AcquirePermits(ctx, 1)
				if err != nil {
					if ctx.Err() == nil {
						errs[g] = fmt.Errorf("acquire: %w", err)
					} else {
						unfinished[g] = time.Now().UnixNano() - call
					}
					return
				}
				ret := time.Now().UnixNano()
				if v := inFlight.Add(1); v > int64(permits) {
					over.Store(max(over.Load(), v-int64(permits)))
				}
				inFlight.Add(-1)
				rel := time.Now().UnixNano()
				if err := p.Release(context.Background()); err != nil {
					errs[g] = fmt.Errorf("release: %w", err)
					return
				}
				events[g] = append(events[g], [3]int64{call, ret, rel})
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(begin)
	if sig.End > 0 {
		elapsed = time.Duration(sig.End - sig.Start)
	}
	var r Result
	r.Seconds = elapsed.Seconds()
	cpu1 := cpuSeconds()
	runtime.ReadMemStats(&ms1)
	for g := range n {
		r.Events = append(r.Events, events[g]...)
		r.Ops += int64(len(events[g]))
		if unfinished[g] > 0 {
			r.Unfinished = append(r.Unfinished, unfinished[g])
		}
	}
	r.Metrics = map[string]float64{"cpu_seconds": cpu1 - cpu0, "mallocs": float64(ms1.Mallocs - ms0.Mallocs), "over": float64(over.Load())}
	return r, errors.Join(errs...)
}
