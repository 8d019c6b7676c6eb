package main

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/fairlock"
)

// Issue #9's groups: the fair lock in the contended scenario beside RLock,
// and the read-write lock under a read-heavy load beside RLock used
// exclusively.

const (
	libFair = "redisson-go fair"   // client.FairLock(name)
	libRW   = "redisson-go rwlock" // client.ReadWriteLock(name)

	grpFair = "Fair lock: redisson-go FairLock beside its RLock (#9)"
	grpRW   = "Read-write lock: redisson-go ReadWriteLock beside its RLock used exclusively (#9)"

	scRW = "rw" // worker scenario of the read-write group
)

func init() {
	groupBases[grpFair] = [2]string{libFair, "fair"}
	groupBases[grpRW] = [2]string{libRW, "rwlock"}
	register(scenarioDef{Name: "fair", Run: (*Runner).fair, Libs: []string{libOurs, libFair}, Evaluate: evaluateFair})
	register(scenarioDef{Name: "rwlock", Run: (*Runner).rw, Libs: []string{libOurs, libRW},
		Workers: map[string]prepareFunc{scRW: prepareRW}, Evaluate: evaluateRW})
}

// fairScenario names the fair group's one scenario.
func (r *Runner) fairScenario() string {
	return fmt.Sprintf("fair lock vs RLock, contended, %d processes × %d goroutines, one key", r.cfg.Procs, r.cfg.Goroutines)
}

// fair runs the contended scenario (runLocking, analyzeContended) with the
// fair lock and RLock, interleaved.
func (r *Runner) fair(ctx context.Context) error {
	return r.contendedRows(ctx, grpFair, r.fairScenario(), []string{libOurs, libFair}, "fc", "fair")
}

// evaluateFair: fairness is the fair lock's point, so its longest wait
// should be the shortest of every contended lock row measured in the run
// (RLock's here, and the peers' when the contended group ran).
func evaluateFair(rep *Report) {
	fair := rep.lookup("fair lock vs RLock", "longest wait (ms)", libFair)
	if fair == nil {
		return
	}
	best, bestWhere := 0.0, ""
	for _, m := range rep.Measurements {
		if m.Metric != "longest wait (ms)" || m == fair || (m.Group != grpFair && m.Group != grpCompare) {
			continue // locks only: a semaphore's waits are not a lock's
		}
		if bestWhere == "" || m.Value < best {
			best, bestWhere = m.Value, m.Lib
			if m.Group == grpFair {
				bestWhere += " in the fair group"
			}
		}
	}
	if bestWhere == "" {
		return
	}
	rep.Targets = append(rep.Targets, Target{Name: "fair lock: longest wait shortest of all contended rows", Want: "≤ every other",
		Got: fmt.Sprintf("%s ms (best other: %s %s ms)", formatNum(fair.Value), bestWhere, formatNum(best)), Pass: fair.Value <= best})
}

// fairLocker is the fair lock behind the Mutex interface of the contended
// scenario.
type fairLocker struct {
	rdb *redis.Client
	c   *redisson.Client
}

func (l *fairLocker) Mutex(key string) Mutex { return &fairMutex{l: l.c.FairLock(key)} }
func (l *fairLocker) Retries() int64         { return 0 }
func (l *fairLocker) Close() error {
	l.c.Close()
	return l.rdb.Close()
}

type fairMutex struct {
	l    *fairlock.Lock
	held *fairlock.Hold
}

func (m *fairMutex) Lock(ctx context.Context) error {
	h, err := m.l.Lock(ctx)
	if err != nil {
		return err
	}
	m.held = h
	return nil
}

func (m *fairMutex) Unlock(ctx context.Context) error { return m.held.Unlock(ctx) }

// ---- read-write lock, read-heavy

// rwScenario names the read-write group's one scenario.
func (r *Runner) rwScenario() string {
	hold := "empty critical section"
	if r.cfg.RWHold > 0 {
		hold = fmt.Sprintf("holds last %v", r.cfg.RWHold)
	}
	return fmt.Sprintf("read-heavy, %d %% reads, %d processes × %d goroutines, one name, %s",
		r.cfg.ReadPercent, r.cfg.Procs, r.cfg.Goroutines, hold)
}

// rw runs the read-heavy load with the read-write lock and with RLock taken
// for reads and writes alike, interleaved.
func (r *Runner) rw(ctx context.Context) error {
	name := r.rwScenario()
	return r.rounds([]string{libOurs, libRW}, func(round int, lib string) error {
		key := r.key("rw", lib)
		s, counter, err := r.spawnCounted(ctx, func(counterFile string) []Job {
			jobs := make([]Job, r.cfg.Procs)
			for p := range jobs {
				jobs[p] = Job{Scenario: scRW, Lib: lib, Addr: r.cfg.Addr, Key: key, Ops: r.cfg.Ops, OpsTimeout: r.cfg.OpsTimeout,
					Goroutines: r.cfg.Goroutines, Process: p, Counter: counterFile, Verify: r.cfg.Verify,
					Params: map[string]float64{"read_percent": float64(r.cfg.ReadPercent), "hold_ns": float64(r.cfg.RWHold)}}
			}
			return jobs
		})
		if err != nil {
			return err
		}
		var reads, writes, violations, unfinished float64
		var readWaits, writeWaits []float64
		secs := 0.0
		for _, res := range s.results {
			reads += res.Metrics["reads"]
			writes += res.Metrics["writes"]
			violations += res.Metrics["violations"]
			unfinished += float64(len(res.Unfinished))
			secs = max(secs, res.Seconds)
			for _, e := range res.Events {
				w := float64(e[1]-e[0]) / 1e6
				if e[2] == 1 {
					writeWaits = append(writeWaits, w)
				} else {
					readWaits = append(readWaits, w)
				}
			}
		}
		slices.Sort(readWaits)
		slices.Sort(writeWaits)
		r.report.add(grpRW, name, "read acquisitions/s", lib, higher, reads/secs)
		r.report.add(grpRW, name, "write acquisitions/s", lib, higher, writes/secs)
		r.report.add(grpRW, name, "read wait p50 (ms)", lib, lower, percentile(readWaits, 0.5))
		r.report.add(grpRW, name, "read wait p99 (ms)", lib, lower, percentile(readWaits, 0.99))
		r.report.add(grpRW, name, "write wait p99 (ms)", lib, lower, percentile(writeWaits, 0.99))
		r.addCPUTo(grpRW, name, "acquisition", lib, s, reads+writes)
		if r.cfg.Ops > 0 {
			r.report.addAgg(grpRW, name, "stalled Lock calls (by op count)", lib, lower, aggMax, unfinished)
		}
		r.report.addAgg(grpRW, name, "lost updates (shared non-atomic counter)", lib, lower, aggMax, writes-float64(counter))
		r.report.addAgg(grpRW, name, "exclusion violations (reader beside a writer)", lib, lower, aggMax, violations)
		r.logf("rwlock        round %d %-18s %8.0f reads/s %6.0f writes/s  read wait p99 %.3f ms  write wait p99 %.3f ms  lost %.0f violations %.0f",
			round, lib, reads/secs, writes/secs, percentile(readWaits, 0.99), percentile(writeWaits, 0.99), writes-float64(counter), violations)
		if reads+writes == 0 {
			return errors.New("no acquisitions")
		}
		return nil
	})
}

// evaluateRW prints the read-heavy ratio and checks exclusion.
func evaluateRW(rep *Report) {
	rw := rep.lookup("read-heavy", "read acquisitions/s", libRW)
	rl := rep.lookup("read-heavy", "read acquisitions/s", libOurs)
	if rw != nil && rl != nil && rl.Value > 0 {
		rep.Targets = append(rep.Targets, Target{Name: "read-heavy: read acquisitions/s, rwlock ÷ RLock used exclusively", Want: "–",
			Got: fmt.Sprintf("%.2f (%s vs %s)", rw.Value/rl.Value, formatNum(rw.Value), formatNum(rl.Value)), Info: true})
	}
	for _, m := range rep.Measurements {
		if m.Group == grpRW && m.Metric == "exclusion violations (reader beside a writer)" {
			rep.Targets = append(rep.Targets, Target{Name: fmt.Sprintf("%s (%s; read-heavy)", m.Metric, m.Lib), Want: "0",
				Got: formatNum(m.Value), Pass: m.Value == 0})
		}
	}
}

// rwLocker takes the read or the write side of one name: the read-write
// lock's, or for RLock the one exclusive lock for both.
type rwLocker struct {
	rdb *redis.Client
	c   *redisson.Client
	lib string
}

// rwHold is one hold of either library.
type rwHold interface{ Unlock(context.Context) error }

func (l *rwLocker) lock(ctx context.Context, key string, write bool) (rwHold, error) {
	if l.lib == libOurs {
		return l.c.Lock(key).Lock(ctx)
	}
	rw := l.c.ReadWriteLock(key)
	if write {
		return rw.WriteLock().Lock(ctx)
	}
	return rw.ReadLock().Lock(ctx)
}

// gauge reads and changes the shared page's in-flight gauges (word 1:
// readers, word 2: writers), atomically across processes.
func (c *sharedCounter) gauge(word int) *atomic.Int64 {
	return (*atomic.Int64)(unsafe.Pointer(&c.mem[8*word]))
}

// prepareRW opens the library for the read-heavy load and warms it up.
func prepareRW(job Job) (func(goSignal) (Result, error), func(), error) {
	if job.Lib != libOurs && job.Lib != libRW {
		return nil, nil, fmt.Errorf("rwlock scenario: unknown library %q", job.Lib)
	}
	rec := &addrRecorder{}
	rdb := redis.NewClient(goRedisOptions(job.Addr, rec))
	c, err := redisson.New(rdb)
	if err != nil {
		rdb.Close()
		return nil, nil, err
	}
	l := &rwLocker{rdb: rdb, c: c, lib: job.Lib}
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
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	errs := make([]error, job.Goroutines)
	for g := range job.Goroutines {
		wg.Go(func() {
			key := fmt.Sprintf("%s:warm:%d:%d", job.Key, job.Process, g)
			for i := range 4 {
				h, err := l.lock(ctx, key, i%2 == 0)
				if err == nil {
					err = h.Unlock(ctx)
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
		cleanup()
		return nil, nil, fmt.Errorf("warm-up: %w", err)
	}
	run := func(sig goSignal) (Result, error) {
		r, err := runRW(job, sig, l, shared)
		r.Addrs = rec.list()
		return r, err
	}
	return run, cleanup, nil
}

// runRW: every goroutine loops, taking the read side with probability
// read_percent and the write side otherwise. A reader reads the shared
// counter; a writer increments it (non-atomically). In-flight gauges count
// a violation when a writer meets anyone or a reader meets a writer.
func runRW(job Job, sig goSignal, l *rwLocker, shared *sharedCounter) (Result, error) {
	readPct := job.Params["read_percent"]
	hold := time.Duration(job.Params["hold_ns"])
	end := time.Unix(0, sig.End)
	if sig.End == 0 {
		end = time.Unix(0, sig.Start).Add(max(job.OpsTimeout, time.Second))
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
	readers, writers := shared.gauge(1), shared.gauge(2)
	var violations atomic.Int64
	n := job.Goroutines
	events := make([][][3]int64, n)
	reads, writes := make([]int64, n), make([]int64, n)
	unfinished := make([]int64, n)
	errs := make([]error, n)
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	begin, cpu0 := time.Now(), cpuSeconds()
	var wg sync.WaitGroup
	for g := range n {
		wg.Go(func() {
			rnd := rand.New(rand.NewPCG(uint64(job.Process), uint64(g)))
			for claim() {
				write := rnd.Float64()*100 >= readPct
				call := time.Now().UnixNano()
				h, err := l.lock(ctx, job.Key, write)
				if err != nil {
					if ctx.Err() == nil {
						errs[g] = fmt.Errorf("lock: %w", err)
					} else {
						unfinished[g] = time.Now().UnixNano() - call
					}
					return
				}
				ret := time.Now().UnixNano()
				if write {
					if writers.Add(1) != 1 || readers.Load() != 0 {
						violations.Add(1)
					}
					shared.increment(job.Verify)
					if hold > 0 {
						time.Sleep(hold)
					}
					writers.Add(-1)
					writes[g]++
				} else {
					readers.Add(1)
					if writers.Load() != 0 {
						violations.Add(1)
					}
					_ = atomic.LoadUint64(shared.p)
					if job.Verify {
						spin(20 * time.Microsecond)
					}
					if hold > 0 {
						time.Sleep(hold)
					}
					if writers.Load() != 0 {
						violations.Add(1)
					}
					readers.Add(-1)
					reads[g]++
				}
				if err := h.Unlock(context.Background()); err != nil {
					errs[g] = fmt.Errorf("unlock: %w", err)
					return
				}
				kind := int64(0)
				if write {
					kind = 1
				}
				events[g] = append(events[g], [3]int64{call, ret, kind})
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
	var nr, nw int64
	for g := range n {
		nr += reads[g]
		nw += writes[g]
		r.Events = append(r.Events, events[g]...)
		if unfinished[g] > 0 {
			r.Unfinished = append(r.Unfinished, unfinished[g])
		}
	}
	r.Ops = nr + nw
	r.Metrics = map[string]float64{"cpu_seconds": cpu1 - cpu0, "mallocs": float64(ms1.Mallocs - ms0.Mallocs),
		"reads": float64(nr), "writes": float64(nw), "violations": float64(violations.Load())}
	return r, errors.Join(errs...)
}
