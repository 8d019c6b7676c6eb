// Command bench compares github.com/goredisson/redisson with other Go Redis
// locks (redsync, redislock, rueidislock) and measures its watchdog and
// waiter scale. See README.md.
//
//	go run . [--redis addr] [--rounds 3] [--full] [--json file] ...   (in bench/)
//	go run -C bench . --help                                          (from the repository root)
//
// Without --redis it starts a private redis-server. Every measurement runs in
// a fresh worker process (this binary, re-executed in a hidden worker mode).
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson/internal/redistest"
)

func main() {
	if os.Getenv(workerEnv) != "" {
		workerMain()
		return
	}
	if err := runMain(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// intList is a flag of comma-separated integers.
type intList []int

func (l *intList) String() string {
	s := make([]string, len(*l))
	for i, v := range *l {
		s[i] = strconv.Itoa(v)
	}
	return strings.Join(s, ",")
}

func (l *intList) Set(v string) error {
	*l = nil
	for _, f := range strings.Split(v, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n <= 0 {
			return fmt.Errorf("bad count %q", f)
		}
		*l = append(*l, n)
	}
	return nil
}

func runMain(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		addr       = fs.String("redis", "", "address of a Redis server to use; default: start a private redis-server (needs redis-server on PATH or $REDIS_SERVER)")
		rounds     = fs.Int("rounds", 3, "rounds of every scenario; libraries run interleaved (A B C D A B C D ...)")
		full       = fs.Bool("full", false, "also hold 100 000 locks in the watchdog scenario (takes longer)")
		jsonOut    = fs.String("json", "", `write the report (all raw round values) as JSON to this file; "-" = stdout (the table then goes to stderr)`)
		only       = fs.String("only", "", "comma-separated scenarios to run: "+strings.Join(scenarioGroups, ","))
		libs       = fs.String("libs", strings.Join(allLibs, ","), "comma-separated libraries of the comparison scenarios")
		dur        = fs.Duration("duration", time.Second, "length of one uncontended / parallel run")
		cdur       = fs.Duration("contended-duration", 2*time.Second, "length of one contended run")
		costOps    = fs.Int("cost-ops", 2000, "lock+unlock pairs of one uncontended cost run")
		costDur    = fs.Duration("cost-duration", time.Second, "length of one contended cost run")
		procs      = fs.Int("procs", 2, "contended: processes")
		goroutines = fs.Int("goroutines", 16, "contended: goroutines per process")
		watchdog   = fs.Duration("watchdog", 3*time.Second, "watchdog scenario: lease (WatchdogTimeout); renewed every third of it")
		periods    = fs.Int("periods", 3, "watchdog scenario: renewal periods to hold the locks")
		lockCounts = intList{1000, 10000}
		waiters    = fs.Int("waiters", 10000, "waiter scenario: waiting goroutines")
		wlocks     = fs.Int("waiter-locks", 1000, "waiter scenario: locks they wait on")
		releases   = fs.Int("releases", 200, "waiter scenario: releases timed for the wake-up latency")
		ops        = fs.Int("ops", 0, "run uncontended, parallel and contended by op count (per process) instead of by time (smoke tests)")
		opsTimeout = fs.Duration("ops-timeout", time.Minute, "with --ops: bound of one run; Lock calls still waiting then count as stalled")
		verify     = fs.Bool("verify", false, "widen the contended critical section (20 µs between reading and writing the shared counter) so broken mutual exclusion shows as lost updates")
		noExtra    = fs.Bool("no-extra", false, "skip the groups of issues #9, #10, #13, #18, #20, #23 and #24 (fair, rwlock, ratelimit, semaphore, redlock, multilock, observer, collections, topic, kinds) in a run without --only")
		rateLimit  = fs.Int("rate", 1000, "ratelimit: the configured rate, permits per second")
		rateGs     = intList{1, 32}
		rateAcc    = fs.Duration("rate-accuracy", 10*time.Second, "ratelimit: length of one accuracy run (2 processes)")
		semPermits = fs.Int("sem-permits", 4, "semaphore: permits (goroutines: --procs × --goroutines)")
		readPct    = fs.Int("read-percent", 90, "rwlock: percentage of acquisitions that are reads")
		rwHold     = fs.Duration("rw-hold", 0, "rwlock: how long each hold lasts (0: empty critical section, as in the contended rows)")
		topicSubs  = fs.Int("topic-subscribers", 100, "topic: subscribers on the one client (ours: Subscribe calls of one Topic; go-redis: PubSub connections)")
		topicRate  = fs.Int("topic-rate", 200, "topic: messages/s of the paced run, low enough for both sides to keep up on a small machine (the other run publishes as fast as it can)")
		profile    = fs.String("cpuprofile", "", "write CPU profiles (pprof) of the worker processes (uncontended, parallel, contended, rate limiter, ...) into this directory")
	)
	fs.Var(&rateGs, "rate-goroutines", "ratelimit: comma-separated goroutine counts of the decisions rows")
	fs.Var(&lockCounts, "locks", "watchdog scenario: comma-separated lock counts (--full adds 100000)")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: make bench ARGS=\"[flags]\", or from the repository root go run -C bench . [flags]\n(bench/ is its own module, so plain go run ./bench does not work from the root)\n\nCompares redisson-go with redsync, redislock and rueidislock, and measures its watchdog and waiter scale;\nthen its fair lock and read-write lock beside its RLock, its rate limiter beside redis_rate, and its semaphore.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if *rounds < 1 || *procs < 1 || *goroutines < 1 || *periods < 1 || *waiters < 1 || *wlocks < 1 || *releases < 1 ||
		*rateLimit < 1 || *semPermits < 1 || *rateAcc <= 0 || *topicSubs < 1 || *topicRate < 1 {
		return errors.New("counts must be positive")
	}
	if *readPct < 0 || *readPct > 100 || *rwHold < 0 {
		return errors.New("--read-percent must be within 0..100 and --rw-hold not negative")
	}
	if *full && !slices.Contains(lockCounts, 100000) {
		lockCounts = append(lockCounts, 100000)
	}
	cfg := Config{
		Rounds: *rounds, Duration: *dur, ContendedDuration: *cdur,
		CostOps: *costOps, CostDuration: *costDur, Procs: *procs, Goroutines: *goroutines,
		Watchdog: *watchdog, Periods: *periods, LockCounts: lockCounts,
		Waiters: *waiters, WaiterLocks: *wlocks, Releases: *releases,
		ProfileDir: *profile, Ops: *ops, OpsTimeout: *opsTimeout, Verify: *verify,
		NoExtra: *noExtra, RateLimit: *rateLimit, RateGoroutines: rateGs, RateAccuracyPeriod: *rateAcc,
		SemPermits: *semPermits, ReadPercent: *readPct, RWHold: *rwHold,
		TopicSubscribers: *topicSubs, TopicRate: *topicRate,
	}
	for _, l := range strings.Split(*libs, ",") {
		l = strings.TrimSpace(l)
		if !slices.Contains(allLibs, l) {
			return fmt.Errorf("unknown library %q (have %s)", l, strings.Join(allLibs, ", "))
		}
		cfg.Libs = append(cfg.Libs, l)
	}
	if *only != "" {
		cfg.Only = make(map[string]bool)
		for _, s := range strings.Split(*only, ",") {
			s = strings.TrimSpace(s)
			if !slices.Contains(scenarioGroups, s) {
				return fmt.Errorf("unknown scenario %q (have %s)", s, strings.Join(scenarioGroups, ", "))
			}
			cfg.Only[s] = true
		}
	}
	if *profile != "" {
		if err := os.MkdirAll(*profile, 0o755); err != nil {
			return err
		}
	}
	table := stdout
	if *jsonOut == "-" {
		table = stderr
	}
	cfg.Log = stderr

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	began := time.Now()
	if *addr == "" {
		srv, err := redistest.Start(ctx, redistest.Options{})
		if err != nil {
			return err
		}
		defer srv.Stop()
		*addr = srv.Addr()
		fmt.Fprintf(stderr, "bench: started redis-server on %s\n", *addr)
	}
	cfg.Addr = *addr

	rep, err := Run(ctx, cfg)
	if rep != nil {
		rep.Machine.Seconds = time.Since(began).Seconds() // with the server's start
		rep.Print(table)
		if *jsonOut != "" {
			if jerr := writeJSON(*jsonOut, stdout, rep); jerr != nil {
				err = errors.Join(err, jerr)
			}
		}
	}
	return err
}

// Run runs cfg and returns the report (partial on error).
func Run(ctx context.Context, cfg Config) (*Report, error) {
	r, err := NewRunner(cfg)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	began := time.Now()
	r.report.Machine = machineInfo(ctx, r.admin)
	rep, err := r.Run(ctx)
	rep.Machine.Seconds = time.Since(began).Seconds()
	return rep, err
}

// Print writes the human-readable report.
func (r *Report) Print(w io.Writer) {
	m := r.Machine
	fmt.Fprintf(w, "# redisson-go benchmark\n\nmachine: %d CPUs (GOMAXPROCS %d), %s; %s; %s; redis-server %s; run took %.0f s\n",
		m.NumCPU, m.GOMAXPROCS, m.CPU, m.OS, m.GoVersion, m.RedisVersion, m.Seconds)
	fmt.Fprintf(w, "rounds: %d, interleaved; values are medians of rounds unless marked; ratio columns = ours ÷ peer (higher is better for /s rows, lower for the others)\n", r.Config.Rounds)
	r.WriteTable(w)
	r.WriteBreakdown(w)
	r.WriteTargets(w)
	r.WriteSettings(w)
}

func writeJSON(path string, stdout io.Writer, rep *Report) error {
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	b = append(b, '\n')
	if path == "-" {
		_, err = stdout.Write(b)
		return err
	}
	return os.WriteFile(path, b, 0o644)
}

// machineInfo describes the machine and the Redis server.
func machineInfo(ctx context.Context, admin *redis.Client) Machine {
	m := Machine{NumCPU: runtime.NumCPU(), GOMAXPROCS: runtime.GOMAXPROCS(0), GoVersion: runtime.Version(),
		OS: runtime.GOOS + "/" + runtime.GOARCH, CPU: "unknown CPU"}
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPU = strings.TrimSpace(v)
				break
			}
		}
		f.Close()
	}
	if info, err := admin.Info(ctx, "server").Result(); err == nil {
		m.RedisVersion = redistest.ParseInfo(info)["redis_version"]
	}
	return m
}
