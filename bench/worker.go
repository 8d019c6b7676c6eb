package main

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// workerEnv carries a Job to a re-executed copy of the runner (the hidden
// worker mode). Every measurement runs in a fresh worker process, so no
// library inherits another's goroutines, connections or garbage.
const workerEnv = "REDISSON_BENCH_WORKER_JOB"

// Scenario names.
const (
	scUncontended = "uncontended"
	scParallel    = "parallel"
	scContended   = "contended"
	scWatchdog    = "watchdog"
	scWaiters     = "waiters"
)

// Job is one measurement in one worker process.
type Job struct {
	Scenario string `json:"scenario"`
	Lib      string `json:"lib"`
	Addr     string `json:"addr"`
	Key      string `json:"key"`
	// Ops > 0 runs that many operations (per process) instead of until the
	// end time the runner sends.
	Ops        int    `json:"ops,omitempty"`
	Goroutines int    `json:"goroutines,omitempty"`
	Process    int    `json:"process,omitempty"`
	Counter    string `json:"counter,omitempty"` // shared non-atomic counter file (contended)
	// Verify widens the critical section of the contended scenario (a short
	// spin between reading and writing the shared counter) so that a broken
	// mutual exclusion shows as lost updates. Tests set it; runs do not.
	Verify bool `json:"verify,omitempty"`

	Locks    int           `json:"locks,omitempty"`
	Watchdog time.Duration `json:"watchdog,omitempty"`
	Periods  int           `json:"periods,omitempty"`

	Waiters     int `json:"waiters,omitempty"`
	WaiterLocks int `json:"waiter_locks,omitempty"`
	Releases    int `json:"releases,omitempty"`

	CPUProfile string `json:"cpu_profile,omitempty"`
	// Params are the parameters of a registered scenario (scenarios.go).
	Params map[string]float64 `json:"params,omitempty"`
	// OpsTimeout bounds a run by op count: a Lock call still waiting then
	// (a lost wake-up) is cancelled and reported as unfinished.
	OpsTimeout time.Duration `json:"ops_timeout,omitempty"`
}

// Result is what a worker reports.
type Result struct {
	Ops     int64   `json:"ops"`
	Seconds float64 `json:"seconds"`
	Retries int64   `json:"retries,omitempty"`
	// Events of the contended scenario: per acquisition the wall-clock unix
	// nanoseconds of the Lock call, its return and the Unlock call.
	Events [][3]int64 `json:"events,omitempty"`
	// Unfinished are the waits (ns) of Lock calls the run's end cancelled.
	Unfinished []int64 `json:"unfinished,omitempty"`
	// Addrs are the local addresses of the library's Redis connections.
	Addrs   []string           `json:"addrs,omitempty"`
	Metrics map[string]float64 `json:"metrics,omitempty"`
	Samples []float64          `json:"samples,omitempty"`
	Error   string             `json:"error,omitempty"`
}

// goSignal is what the runner sends a ready worker: when to start and, for
// runs by time, when to stop (unix nanoseconds; 0 = by op count).
type goSignal struct {
	Start, End int64
}

// workerMain runs the job in $REDISSON_BENCH_WORKER_JOB and exits.
func workerMain() {
	var job Job
	if err := json.Unmarshal([]byte(os.Getenv(workerEnv)), &job); err != nil {
		fmt.Fprintln(os.Stderr, "bench worker: bad job:", err)
		os.Exit(2)
	}
	res := runWorker(job, os.Stdin, os.Stdout)
	out, _ := json.Marshal(res)
	fmt.Fprintf(os.Stdout, "RESULT %s\n", out)
	if res.Error != "" {
		os.Exit(1)
	}
	os.Exit(0)
}

// runWorker prepares job, says READY on out, waits for GO on in, runs and
// returns the result.
func runWorker(job Job, in io.Reader, out io.Writer) (res Result) {
	defer func() {
		if p := recover(); p != nil {
			res = Result{Error: fmt.Sprintf("panic: %v", p)}
		}
	}()
	var run func(goSignal) (Result, error)
	var cleanup func()
	var err error
	switch job.Scenario {
	case scUncontended, scParallel, scContended:
		run, cleanup, err = prepareLocking(job)
	case scWatchdog:
		run, cleanup, err = prepareWatchdog(job)
	case scWaiters:
		run, cleanup, err = prepareWaiters(job)
	default:
		prepare, ok := extraWorker(job.Scenario)
		if !ok {
			err = fmt.Errorf("unknown scenario %q", job.Scenario)
			break
		}
		run, cleanup, err = prepare(job)
	}
	if err != nil {
		return Result{Error: err.Error()}
	}
	defer cleanup()
	fmt.Fprintln(out, "READY")
	line, err := bufio.NewReader(in).ReadString('\n')
	if err != nil {
		return Result{Error: "waiting for GO: " + err.Error()}
	}
	var sig goSignal
	if _, err := fmt.Sscanf(strings.TrimSpace(line), "GO %d %d", &sig.Start, &sig.End); err != nil {
		return Result{Error: fmt.Sprintf("bad GO line %q: %v", line, err)}
	}
	time.Sleep(time.Until(time.Unix(0, sig.Start)))
	if job.CPUProfile != "" {
		f, err := os.Create(job.CPUProfile)
		if err != nil {
			return Result{Error: err.Error()}
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return Result{Error: err.Error()}
		}
		defer pprof.StopCPUProfile()
	}
	res, err = run(sig)
	if err != nil {
		res.Error = err.Error()
	}
	return res
}

// prepareLocking opens the library and warms it up for the uncontended,
// parallel and contended scenarios.
func prepareLocking(job Job) (func(goSignal) (Result, error), func(), error) {
	rec := &addrRecorder{}
	lk, err := openLocker(job.Lib, job.Addr, rec)
	if err != nil {
		return nil, nil, err
	}
	n := 1
	switch job.Scenario {
	case scParallel:
		n = runtime.GOMAXPROCS(0)
	case scContended:
		n = job.Goroutines
	}
	mutexes := make([]Mutex, n)
	for g := range mutexes {
		key := job.Key
		if job.Scenario == scParallel {
			key += ":" + strconv.Itoa(g)
		}
		mutexes[g] = lk.Mutex(key)
	}
	// Warm up: every goroutine takes and releases a key of its own at once,
	// so connections are dialled and scripts loaded before the clock runs.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	errs := make([]error, n)
	for g := range n {
		wg.Go(func() {
			m := lk.Mutex(fmt.Sprintf("%s:warm:%d:%d", job.Key, job.Process, g))
			for range 3 {
				if errs[g] = m.Lock(ctx); errs[g] != nil {
					return
				}
				if errs[g] = m.Unlock(ctx); errs[g] != nil {
					return
				}
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		lk.Close()
		return nil, nil, fmt.Errorf("warm-up: %w", err)
	}
	var shared *sharedCounter
	if job.Scenario == scContended && job.Counter != "" {
		if shared, err = openSharedCounter(job.Counter); err != nil {
			lk.Close()
			return nil, nil, err
		}
	}
	cleanup := func() {
		lk.Close()
		if shared != nil {
			shared.close()
		}
	}
	run := func(sig goSignal) (Result, error) {
		r, err := runLocking(job, sig, mutexes, shared)
		r.Retries = lk.Retries()
		r.Addrs = rec.list()
		return r, err
	}
	return run, cleanup, nil
}

// runLocking runs lock+unlock loops on the mutexes, one goroutine each, until
// the end time or until job.Ops operations were claimed.
func runLocking(job Job, sig goSignal, mutexes []Mutex, shared *sharedCounter) (Result, error) {
	ctx := context.Background()
	end := time.Unix(0, sig.End)
	if sig.End == 0 {
		end = time.Unix(0, sig.Start).Add(cmp.Or(job.OpsTimeout, time.Minute))
	}
	ctx, cancel := context.WithDeadline(ctx, end)
	defer cancel()
	record := job.Scenario == scContended
	var claimed atomic.Int64
	claim := func() bool {
		if job.Ops > 0 {
			return claimed.Add(1) <= int64(job.Ops)
		}
		return ctx.Err() == nil
	}
	events := make([][][3]int64, len(mutexes))
	counts := make([]int64, len(mutexes))
	unfinished := make([]int64, len(mutexes))
	errs := make([]error, len(mutexes))
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	begin, cpu0 := time.Now(), cpuSeconds()
	var wg sync.WaitGroup
	for g, m := range mutexes {
		wg.Go(func() {
			for claim() {
				call := time.Now().UnixNano()
				if err := m.Lock(ctx); err != nil {
					if ctx.Err() == nil {
						errs[g] = fmt.Errorf("lock: %w", err)
					} else {
						unfinished[g] = time.Now().UnixNano() - call
					}
					return
				}
				ret := time.Now().UnixNano()
				if shared != nil {
					shared.increment(job.Verify)
				}
				rel := time.Now().UnixNano()
				if err := m.Unlock(context.Background()); err != nil {
					errs[g] = fmt.Errorf("unlock: %w", err)
					return
				}
				counts[g]++
				if record {
					events[g] = append(events[g], [3]int64{call, ret, rel})
				}
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
	r.Metrics = map[string]float64{"cpu_seconds": cpu1 - cpu0, "mallocs": float64(ms1.Mallocs - ms0.Mallocs)}
	for g := range mutexes {
		r.Ops += counts[g]
		r.Events = append(r.Events, events[g]...)
		if unfinished[g] > 0 {
			r.Unfinished = append(r.Unfinished, unfinished[g])
		}
	}
	return r, errors.Join(errs...)
}

// spin busy-waits for d without yielding the thread.
func spin(d time.Duration) {
	for end := time.Now().Add(d); time.Now().Before(end); {
	}
}
