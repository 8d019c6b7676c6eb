package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-redis/redis_rate/v10"
	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/ratelimit"
)

// Issue #10's rate limiter group: our RRateLimiter beside
// github.com/go-redis/redis_rate (GCRA), decisions/s and accuracy.

const (
	libRate = "redisson-go ratelimit" // client.RateLimiter(name), OVERALL
	// libRateBG is the same, called with a context without deadline: since
	// #8 a call whose context ends before go-redis' ReadTimeout runs on a
	// helper goroutine so that it returns at its deadline when Redis stalls
	// (go-redis ignores context deadlines by default, and so redis_rate
	// does); the runner's contexts end with the run.
	libRateBG = "ours, no ctx deadline"
	libGCRA   = "redis_rate" // redis_rate.NewLimiter(rdb).Allow(ctx, key, PerSecond(rate))

	grpRate = "Rate limiter: redisson-go RRateLimiter beside go-redis/redis_rate (GCRA) (#10)"

	scRate = "ratelimit" // worker scenario

	// rateAccuracyGoroutines hammer the limiter in each of the accuracy
	// run's 2 processes.
	rateAccuracyGoroutines = 4
	rateAccuracyProcs      = 2
)

func init() {
	groupBases[grpRate] = [2]string{libRate, "ours"}
	register(scenarioDef{Name: "ratelimit", Run: (*Runner).rateLimit, Libs: []string{libRate, libRateBG, libGCRA},
		Workers: map[string]prepareFunc{scRate: prepareRate}, Evaluate: evaluateRate})
}

// rateLimit runs, per goroutine count, the decisions rows (one process, by
// time or op count), then the accuracy row (2 processes for
// RateAccuracyPeriod), each interleaving the two libraries.
func (r *Runner) rateLimit(ctx context.Context) error {
	libs := []string{libRate, libGCRA}
	for _, g := range r.cfg.RateGoroutines {
		libs := []string{libRate, libRateBG, libGCRA}
		name := fmt.Sprintf("decisions, 1 process × %d goroutine(s), rate %d/s", g, r.cfg.RateLimit)
		err := r.rounds(libs, func(round int, lib string) error {
			job := Job{Scenario: scRate, Lib: lib, Addr: r.cfg.Addr, Key: r.key("rl", lib), Goroutines: g,
				Ops: r.cfg.Ops, OpsTimeout: r.cfg.OpsTimeout, Params: map[string]float64{"rate": float64(r.cfg.RateLimit)},
				CPUProfile: r.profilePath(fmt.Sprintf("ratelimit-g%d", g), lib, round, "")}
			s, err := r.spawn(ctx, []Job{job}, runSpec{duration: r.duration(r.cfg.Duration)})
			if err != nil {
				return err
			}
			res := s.results[0]
			rate := float64(res.Ops) / res.Seconds
			r.report.add(grpRate, name, "decisions/s", lib, higher, rate)
			r.report.add(grpRate, name, "granted (%)", lib, "neither", 100*res.Metrics["granted"]/max(float64(res.Ops), 1))
			r.addCPUTo(grpRate, name, "decision", lib, s, float64(res.Ops))
			r.logf("ratelimit     round %d %-22s %2d goroutines %8.0f decisions/s (%.0f granted)", round, lib, g, rate, res.Metrics["granted"])
			if res.Ops == 0 {
				return errors.New("no decisions")
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	period := r.cfg.RateAccuracyPeriod
	name := fmt.Sprintf("accuracy, %d processes × %d goroutines for %v, rate %d/s", rateAccuracyProcs, rateAccuracyGoroutines, period, r.cfg.RateLimit)
	return r.rounds(libs, func(round int, lib string) error {
		key := r.key("ra", lib)
		jobs := make([]Job, rateAccuracyProcs)
		for p := range jobs {
			jobs[p] = Job{Scenario: scRate, Lib: lib, Addr: r.cfg.Addr, Key: key, Goroutines: rateAccuracyGoroutines, Process: p,
				Params: map[string]float64{"rate": float64(r.cfg.RateLimit), "record": 1}}
		}
		s, err := r.spawn(ctx, jobs, runSpec{duration: period})
		if err != nil {
			return err
		}
		var grants []int64
		var decisions float64
		for _, res := range s.results {
			decisions += float64(res.Ops)
			for _, e := range res.Events {
				grants = append(grants, e[0])
			}
		}
		slices.Sort(grants)
		allowed := float64(r.cfg.RateLimit) * period.Seconds()
		worst := maxInWindow(grants, int64(time.Second))
		r.report.add(grpRate, name, "permits granted ÷ (rate × duration)", lib, "nearer 1", float64(len(grants))/allowed)
		r.report.addAgg(grpRate, name, "most permits in any 1 s window ÷ rate", lib, lower, aggMax, float64(worst)/float64(r.cfg.RateLimit))
		r.report.add(grpRate, name, "decisions/s (both processes)", lib, higher, decisions/period.Seconds())
		r.logf("ratelimit acc round %d %-22s granted %d of %.0f allowed (%.3f), most in 1 s %d (rate %d)",
			round, lib, len(grants), allowed, float64(len(grants))/allowed, worst, r.cfg.RateLimit)
		return nil
	})
}

// maxInWindow returns the most sorted timestamps within any half-open span
// of length w.
func maxInWindow(ts []int64, w int64) int {
	best, i := 0, 0
	for j := range ts {
		for ts[j]-ts[i] >= w {
			i++
		}
		best = max(best, j-i+1)
	}
	return best
}

// evaluateRate prints ours ÷ redis_rate for decisions/s.
func evaluateRate(rep *Report) {
	for _, m := range rep.Measurements {
		if m.Group != grpRate || (m.Lib != libRate && m.Lib != libRateBG) || m.Metric != "decisions/s" {
			continue
		}
		if p := rep.find(grpRate, m.Scenario, m.Metric, libGCRA); p != nil && p.Value > 0 {
			who := "ours"
			if m.Lib == libRateBG {
				who = "ours (ctx without deadline)"
			}
			rep.Targets = append(rep.Targets, Target{Name: "rate limiter " + m.Scenario + ": " + who + " ÷ redis_rate", Want: "–",
				Got: fmt.Sprintf("%.2f (%s vs %s decisions/s)", m.Value/p.Value, formatNum(m.Value), formatNum(p.Value)), Info: true})
		}
	}
	// Issue #22, point 5: the client's cost of a decision under a ctx
	// deadline (the bound without a goroutine), against redis_rate's.
	const cpu = "client CPU µs per decision"
	for _, m := range rep.Measurements {
		if m.Group != grpRate || m.Lib != libRate || m.Metric != cpu {
			continue
		}
		if p := rep.find(grpRate, m.Scenario, cpu, libGCRA); p != nil {
			rep.Targets = append(rep.Targets, Target{Name: "rate limiter " + m.Scenario + ": " + cpu + ", ours (ctx deadline) vs redis_rate",
				Want: "≤ redis_rate + 10 µs", Got: fmt.Sprintf("%s vs %s", formatNum(m.Value), formatNum(p.Value)), Pass: m.Value <= p.Value+10})
		}
	}
}

// decider makes one rate limiting decision for one permit.
type decider func(ctx context.Context) (bool, error)

// prepareRate opens the library, sets the rate (ours: TrySetRate OVERALL,
// rate per second; redis_rate: PerSecond(rate), whose burst is the rate)
// and warms up on a key of its own.
func prepareRate(job Job) (func(goSignal) (Result, error), func(), error) {
	rec := &addrRecorder{}
	rdb := redis.NewClient(goRedisOptions(job.Addr, rec))
	rate := int(job.Params["rate"])
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var open func(key string) (decider, error)
	cleanup := func() { rdb.Close() }
	switch job.Lib {
	case libRate, libRateBG:
		c, err := redisson.New(rdb)
		if err != nil {
			rdb.Close()
			return nil, nil, err
		}
		cleanup = func() {
			c.Close()
			rdb.Close()
		}
		open = func(key string) (decider, error) {
			l := c.RateLimiter(key)
			if _, err := l.TrySetRate(ctx, ratelimit.Overall, int64(rate), time.Second); err != nil {
				return nil, err
			}
			if job.Lib == libRateBG {
				return func(ctx context.Context) (bool, error) { return l.TryAcquire(context.WithoutCancel(ctx), 1) }, nil
			}
			return func(ctx context.Context) (bool, error) { return l.TryAcquire(ctx, 1) }, nil
		}
	case libGCRA:
		lim := redis_rate.NewLimiter(rdb)
		limit := redis_rate.PerSecond(rate)
		open = func(key string) (decider, error) {
			return func(ctx context.Context) (bool, error) {
				res, err := lim.Allow(ctx, key, limit)
				if err != nil {
					return false, err
				}
				return res.Allowed > 0, nil
			}, nil
		}
	default:
		rdb.Close()
		return nil, nil, fmt.Errorf("ratelimit scenario: unknown library %q", job.Lib)
	}
	warm, err := open(fmt.Sprintf("%s:warm:%d", job.Key, job.Process))
	if err == nil {
		for range 3 * job.Goroutines {
			if _, err = warm(ctx); err != nil {
				break
			}
		}
	}
	var decide decider
	if err == nil {
		decide, err = open(job.Key)
	}
	if err != nil {
		cleanup()
		return nil, nil, fmt.Errorf("warm-up: %w", err)
	}
	run := func(sig goSignal) (Result, error) {
		r, err := runRate(job, sig, decide)
		r.Addrs = rec.list()
		return r, err
	}
	return run, cleanup, nil
}

// runRate: every goroutine asks for one permit after the other; with
// "record" the call times of the granted ones are returned as events.
func runRate(job Job, sig goSignal, decide decider) (Result, error) {
	record := job.Params["record"] != 0
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
		return time.Now().Before(end)
	}
	n := job.Goroutines
	decisions, granted := make([]int64, n), make([]int64, n)
	events := make([][][3]int64, n)
	errs := make([]error, n)
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	begin, cpu0 := time.Now(), cpuSeconds()
	var wg sync.WaitGroup
	for g := range n {
		wg.Go(func() {
			for claim() {
				call := time.Now().UnixNano()
				ok, err := decide(ctx)
				if err != nil {
					if ctx.Err() == nil {
						errs[g] = err
					}
					return
				}
				decisions[g]++
				if ok {
					granted[g]++
					if record {
						events[g] = append(events[g], [3]int64{call, time.Now().UnixNano(), 0})
					}
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
	var ng int64
	for g := range n {
		r.Ops += decisions[g]
		ng += granted[g]
		r.Events = append(r.Events, events[g]...)
	}
	r.Metrics = map[string]float64{"cpu_seconds": cpu1 - cpu0, "mallocs": float64(ms1.Mallocs - ms0.Mallocs), "granted": float64(ng)}
	return r, errors.Join(errs...)
}
