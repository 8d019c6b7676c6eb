package main

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/google/uuid"
	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/rlock"
)

// acquireParallelism is how many goroutines take the locks of the watchdog
// and waiter scenarios before the measured phase.
const acquireParallelism = 64

// acquireBound bounds the acquire phase of the watchdog scenario. The
// per-lock-timer baseline may never finish it: once the renewals of the locks
// it holds saturate Redis (100 000 locks with a 1 s period need 100 000
// scripts a second), new acquires starve and old leases lapse. It then holds
// what it got, and the rest is reported as not acquired.
const acquireBound = time.Minute

var errAcquireBound = errors.New("acquire phase bound reached")

// Redisson's RLock acquire script (tryLockInnerAsync), for the baseline.
var timerAcquireScript = redis.NewScript(`
if (redis.call('exists', KEYS[1]) == 0) or (redis.call('hexists', KEYS[1], ARGV[2]) == 1) then
	redis.call('hincrby', KEYS[1], ARGV[2], 1)
	redis.call('pexpire', KEYS[1], ARGV[1])
	return nil
end
return redis.call('pttl', KEYS[1])
`)

// Redisson < 3.44's renewExpirationAsync: one lock per call, one call per
// lock and period.
var timerRenewScript = redis.NewScript(`
if (redis.call('hexists', KEYS[1], ARGV[2]) == 1) then
	redis.call('pexpire', KEYS[1], ARGV[1])
	return 1
end
return 0
`)

// cpuSeconds is the process' user+system CPU time so far.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

// holdProbe is what the watchdog scenario samples before and after the
// hold phase.
type holdProbe struct {
	at      time.Time
	cpu     float64
	mallocs uint64
	rounds  uint64
	scripts uint64
	renewed uint64
	lost    uint64
}

func probeNow(renewals func() (rounds, scripts, renewed, lost uint64)) holdProbe {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	p := holdProbe{at: time.Now(), cpu: cpuSeconds(), mallocs: ms.Mallocs}
	p.rounds, p.scripts, p.renewed, p.lost = renewals()
	return p
}

// forEach runs f(i) for i in [0, n) on acquireParallelism goroutines and
// returns the first error.
func forEach(n int, f func(i int) error) error {
	var next atomic.Int64
	var wg sync.WaitGroup
	var mu sync.Mutex
	var first error
	for range min(acquireParallelism, n) {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				if err := f(i); err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
					return
				}
			}
		})
	}
	wg.Wait()
	return first
}

// prepareWatchdog takes job.Locks locks with a job.Watchdog lease, by our
// client (watchdog on the timing wheel) or by the per-lock-timer baseline.
func prepareWatchdog(job Job) (func(goSignal) (Result, error), func(), error) {
	rdb := redis.NewClient(&redis.Options{Addr: job.Addr})
	keys := make([]string, job.Locks)
	fields := make([]string, job.Locks)
	for i := range keys {
		keys[i] = job.Key + ":" + strconv.Itoa(i)
	}
	ctx := context.Background()
	acqCtx, acqCancel := context.WithTimeout(ctx, acquireBound)
	defer acqCancel()
	acquired := make([]bool, job.Locks)
	period := job.Watchdog / 3
	var (
		renewals func() (rounds, scripts, renewed, lost uint64)
		alive    func() int // local holds still believed held
		stop     func()
	)
	switch job.Lib {
	case libOurs:
		c, err := redisson.New(rdb, redisson.WithWatchdogTimeout(job.Watchdog))
		if err != nil {
			rdb.Close()
			return nil, nil, err
		}
		held := make([]*rlock.Hold, job.Locks)
		err = forEach(job.Locks, func(i int) error {
			// The keys are free: Lock does not wait. Its ctx must not be
			// acqCtx, which the hold's context would inherit.
			if acqCtx.Err() != nil {
				return errAcquireBound
			}
			h, err := c.Lock(keys[i]).Lock(ctx)
			if err != nil {
				return err
			}
			held[i], fields[i], acquired[i] = h, c.ID()+":"+strconv.FormatInt(h.Owner(), 10), true
			return nil
		})
		if err != nil && !errors.Is(err, errAcquireBound) {
			c.Close()
			rdb.Close()
			return nil, nil, fmt.Errorf("acquire: %w", err)
		}
		renewals = func() (uint64, uint64, uint64, uint64) {
			s := c.Stats().Renewal
			return s.Rounds, s.Scripts, s.Renewed, s.Lost
		}
		alive = func() int {
			n := 0
			for _, h := range held {
				if h != nil && h.Err() == nil {
					n++
				}
			}
			return n
		}
		stop = func() { c.Close() }
	case libTimer:
		id := uuid.NewString()
		var calls, renewed, lost atomic.Uint64
		var lapsed sync.Map
		tctx, cancel := context.WithCancel(ctx)
		var wg sync.WaitGroup
		err := forEach(job.Locks, func(i int) error {
			fields[i] = id + ":" + strconv.Itoa(i)
			err := timerAcquireScript.Run(acqCtx, rdb, []string{keys[i]}, job.Watchdog.Milliseconds(), fields[i]).Err()
			if !errors.Is(err, redis.Nil) {
				if acqCtx.Err() != nil {
					return errAcquireBound
				}
				if err == nil {
					err = fmt.Errorf("%s is held by someone else", keys[i])
				}
				return err
			}
			acquired[i] = true
			wg.Go(func() {
				t := time.NewTicker(period)
				defer t.Stop()
				for {
					select {
					case <-tctx.Done():
						return
					case <-t.C:
					}
					calls.Add(1)
					v, err := timerRenewScript.Run(tctx, rdb, []string{keys[i]}, job.Watchdog.Milliseconds(), fields[i]).Int64()
					switch {
					case tctx.Err() != nil:
						return
					case err != nil:
						continue // retried at the next tick, as Redisson does
					case v == 1:
						renewed.Add(1)
					default:
						lost.Add(1)
						lapsed.Store(i, true)
						return
					}
				}
			})
			return nil
		})
		if err != nil && !errors.Is(err, errAcquireBound) {
			cancel()
			wg.Wait()
			rdb.Close()
			return nil, nil, fmt.Errorf("acquire: %w", err)
		}
		renewals = func() (uint64, uint64, uint64, uint64) {
			n := calls.Load()
			return n, n, renewed.Load(), lost.Load()
		}
		alive = func() int {
			n := 0
			for _, a := range acquired {
				if a {
					n++
				}
			}
			lapsed.Range(func(any, any) bool { n--; return true })
			return n
		}
		stop = func() { cancel(); wg.Wait() }
	default:
		rdb.Close()
		return nil, nil, fmt.Errorf("watchdog scenario: unknown library %q", job.Lib)
	}
	cleanup := func() {
		stop()
		pipe := rdb.Pipeline()
		for _, k := range keys {
			pipe.Unlink(ctx, k)
		}
		_, _ = pipe.Exec(ctx)
		rdb.Close()
	}
	run := func(goSignal) (Result, error) {
		runtime.GC()
		before := probeNow(renewals)
		time.Sleep(time.Duration(job.Periods) * period)
		after := probeNow(renewals)
		periods := after.at.Sub(before.at).Seconds() / period.Seconds()
		// Every key must still exist with our owner field.
		pipe := rdb.Pipeline()
		cmds := make([]*redis.BoolCmd, len(keys))
		for i, k := range keys {
			cmds[i] = pipe.HExists(ctx, k, fields[i])
		}
		if _, err := pipe.Exec(ctx); err != nil {
			return Result{}, fmt.Errorf("checking the locks: %w", err)
		}
		missing, held := 0, 0
		for i, c := range cmds {
			if acquired[i] {
				held++
				if !c.Val() {
					missing++
				}
			}
		}
		lapses := max(missing, held-alive(), int(after.lost-before.lost))
		return Result{
			Ops:     int64(job.Locks),
			Seconds: after.at.Sub(before.at).Seconds(),
			Metrics: map[string]float64{
				"round_trips_per_period": float64(after.rounds-before.rounds) / periods,
				"scripts_per_period":     float64(after.scripts-before.scripts) / periods,
				"renewed_per_period":     float64(after.renewed-before.renewed) / periods,
				"cpu_seconds":            after.cpu - before.cpu,
				"mallocs":                float64(after.mallocs - before.mallocs),
				"lapses":                 float64(lapses),
				"missing_keys":           float64(missing),
				"not_acquired":           float64(job.Locks - held),
			},
		}, nil
	}
	return run, cleanup, nil
}
