package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson/internal/redistest"
)

// Config is one run of the runner.
type Config struct {
	Addr   string          // Redis address
	Rounds int             // rounds of every scenario
	Libs   []string        // comparison libraries, in interleaving order
	Only   map[string]bool // scenarios to run (all when empty)

	Duration          time.Duration // uncontended and parallel runs
	ContendedDuration time.Duration
	// Ops > 0 replaces the durations by op counts (tests).
	Ops int
	// OpsTimeout bounds a run by op count (default 1 minute).
	OpsTimeout time.Duration

	CostOps      int           // lock+unlock pairs of the uncontended cost run
	CostDuration time.Duration // contended cost run
	Procs        int           // contended: processes
	Goroutines   int           // contended: goroutines per process

	Watchdog   time.Duration // watchdog scenario lease (period = lease/3)
	Periods    int           // renewal periods held
	LockCounts []int         // watchdog scenario sizes

	Waiters     int
	WaiterLocks int
	Releases    int

	ProfileDir string // CPU profiles of contended workers
	Verify     bool   // widen critical sections (tests)

	// NoExtra skips the registered scenario groups (scenarios.go) in a run
	// without --only.
	NoExtra bool
	// Rate limiter groups: the configured rate (permits per second), the
	// goroutine counts of the decisions rows and the accuracy run's length.
	RateLimit          int
	RateGoroutines     []int
	RateAccuracyPeriod time.Duration
	// Semaphore group: permits (goroutines: Procs × Goroutines).
	SemPermits int
	// Read-write group: percentage of reads and time a hold lasts.
	ReadPercent int
	RWHold      time.Duration
	// Topic group: subscribers on the one client, and the paced run's
	// publish rate (messages per second).
	TopicSubscribers int
	TopicRate        int

	Log io.Writer `json:"-"` // progress lines
}

// Scenario groups as --only accepts them: the built-in ones, then those
// registered in scenarios.go.
var scenarioGroups = []string{"uncontended", "parallel", "floor", "contended", "cost", "watchdog", "waiters"}

// builtinSteps is how many of scenarioGroups are built in.
const builtinSteps = 7

// enabled reports whether a built-in group runs.
func (c *Config) enabled(s string) bool { return len(c.Only) == 0 || c.Only[s] }

// Runner runs scenarios in worker processes and collects measurements.
type Runner struct {
	cfg     Config
	admin   *redis.Client
	mon     *Monitor
	self    string
	tmp     string
	seq     int
	report  *Report
	costAcc map[string]*costAcc
}

// costAcc sums the commands and acquisitions of one library's cost runs.
type costAcc struct {
	ops    int64
	counts map[string]int
}

// NewRunner connects the runner's own (bookkeeping) client.
func NewRunner(cfg Config) (*Runner, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "redisson-bench-")
	if err != nil {
		return nil, err
	}
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	admin := redis.NewClient(&redis.Options{Addr: cfg.Addr, PoolSize: 2})
	if err := admin.Ping(context.Background()).Err(); err != nil {
		admin.Close()
		os.RemoveAll(tmp)
		return nil, fmt.Errorf("redis at %s: %w", cfg.Addr, err)
	}
	return &Runner{
		cfg: cfg, admin: admin, self: self, tmp: tmp,
		report:  newReport(),
		costAcc: make(map[string]*costAcc),
	}, nil
}

// Close releases the runner's resources.
func (r *Runner) Close() {
	if r.mon != nil {
		r.mon.Close()
	}
	r.admin.Close()
	os.RemoveAll(r.tmp)
}

// Run runs every enabled scenario and returns the report.
func (r *Runner) Run(ctx context.Context) (*Report, error) {
	r.report.Config = r.cfg
	libs := append(slices.Clone(r.cfg.Libs), libTimer)
	if r.cfg.enabled("floor") {
		libs = append(libs, floorLibs...)
	}
	for _, lib := range r.cfg.extraLibs() {
		if !slices.Contains(libs, lib) {
			libs = append(libs, lib)
		}
	}
	for _, lib := range libs {
		r.report.Settings = append(r.report.Settings, LibSettings{Lib: lib, Settings: librarySettings(lib)})
	}
	steps := []struct {
		name string
		fn   func(context.Context) error
	}{
		{"uncontended", r.uncontended},
		{"parallel", r.parallel},
		{"floor", r.floor},
		{"contended", r.contended},
		{"cost", r.cost},
		{"watchdog", r.watchdog},
		{"waiters", r.waiters},
	}
	for _, s := range extraScenarios {
		if r.cfg.enabledExtra(s.Name) {
			steps = append(steps, struct {
				name string
				fn   func(context.Context) error
			}{s.Name, func(ctx context.Context) error { return s.Run(r, ctx) }})
		}
	}
	for i, s := range steps {
		if i < builtinSteps && !r.cfg.enabled(s.name) {
			continue
		}
		start := time.Now()
		if err := s.fn(ctx); err != nil {
			return r.report, fmt.Errorf("%s: %w", s.name, err)
		}
		r.logf("%s done in %.1fs", s.name, time.Since(start).Seconds())
	}
	for lib, acc := range r.costAcc {
		r.report.addBreakdown(lib, acc)
	}
	r.report.evaluate()
	return r.report, nil
}

func (r *Runner) logf(format string, args ...any) {
	fmt.Fprintf(r.cfg.Log, "bench: "+format+"\n", args...)
}

func (r *Runner) key(scenario, lib string) string {
	r.seq++
	return fmt.Sprintf("rb:%s:%s:%d:%d", scenario, lib, os.Getpid(), r.seq)
}

// runSpec is what spawn needs beyond the jobs.
type runSpec struct {
	duration time.Duration // 0: jobs run by op count
	count    bool          // count commands on MONITOR
}

// spawned is the outcome of one run of worker processes.
type spawned struct {
	results []Result
	// counts of the top-level commands of the workers' connections.
	counts map[string]int
	// scriptCalls counts the calls scripts made in the window, anyone's
	// (the runner's own connections run none).
	scriptCalls int
	// serverCPU is redis-server's CPU time (user+sys, INFO cpu) from GO to
	// the last result; clientCPU the workers' CPU time in their run phase,
	// mallocs their heap allocations then.
	serverCPU, clientCPU, mallocs float64
	// countSeconds is how long the counting window was open (from the
	// start marker to the stop marker).
	countSeconds float64
}

// serverCPU returns redis-server's used_cpu_user + used_cpu_sys.
func (r *Runner) serverCPU(ctx context.Context) float64 {
	info, err := r.admin.Info(ctx, "cpu").Result()
	if err != nil {
		return 0
	}
	f := redistest.ParseInfo(info)
	u, _ := strconv.ParseFloat(f["used_cpu_user"], 64)
	s, _ := strconv.ParseFloat(f["used_cpu_sys"], 64)
	return u + s
}

// spawn runs jobs, one worker process each, started together.
func (r *Runner) spawn(ctx context.Context, jobs []Job, spec runSpec) (*spawned, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	type proc struct {
		cmd    *exec.Cmd
		stdin  io.WriteCloser
		stdout *bufio.Reader
		stderr *strings.Builder
	}
	procs := make([]*proc, len(jobs))
	defer func() {
		for _, p := range procs {
			if p != nil && p.cmd.ProcessState == nil {
				_ = p.cmd.Process.Kill()
				_ = p.cmd.Wait()
			}
		}
	}()
	for i, job := range jobs {
		js, err := json.Marshal(job)
		if err != nil {
			return nil, err
		}
		cmd := exec.CommandContext(ctx, r.self)
		cmd.Env = append(os.Environ(), workerEnv+"="+string(js))
		p := &proc{cmd: cmd, stderr: &strings.Builder{}}
		// Worker stderr (normally empty) is kept for errors and passed on.
		cmd.Stderr = io.MultiWriter(&lockedWriter{w: p.stderr}, r.cfg.Log)
		if p.stdin, err = cmd.StdinPipe(); err != nil {
			return nil, err
		}
		out, err := cmd.StdoutPipe()
		if err != nil {
			return nil, err
		}
		p.stdout = bufio.NewReaderSize(out, 1<<20)
		if err := cmd.Start(); err != nil {
			return nil, err
		}
		procs[i] = p
	}
	fail := func(i int, err error) error {
		p := procs[i]
		_ = p.cmd.Process.Kill()
		_ = p.cmd.Wait()
		return fmt.Errorf("worker %s/%s #%d: %w; stderr: %s", jobs[i].Scenario, jobs[i].Lib, i, err, p.stderr.String())
	}
	for i, p := range procs {
		line, err := p.stdout.ReadString('\n')
		if err != nil {
			return nil, fail(i, fmt.Errorf("no READY: %v", err))
		}
		if res, ok := strings.CutPrefix(line, "RESULT "); ok {
			var rr Result
			_ = json.Unmarshal([]byte(res), &rr)
			return nil, fail(i, errors.New(rr.Error))
		}
		if strings.TrimSpace(line) != "READY" {
			return nil, fail(i, fmt.Errorf("unexpected %q", line))
		}
	}
	var countStart time.Time
	if spec.count {
		if err := r.mark(ctx, "start"); err != nil {
			return nil, err
		}
		countStart = time.Now()
	}
	cpu0 := r.serverCPU(ctx)
	start := time.Now().Add(20 * time.Millisecond)
	var end int64
	if spec.duration > 0 {
		end = start.Add(spec.duration).UnixNano()
	}
	for i, p := range procs {
		if _, err := fmt.Fprintf(p.stdin, "GO %d %d\n", start.UnixNano(), end); err != nil {
			return nil, fail(i, err)
		}
	}
	out := &spawned{results: make([]Result, len(procs))}
	for i, p := range procs {
		line, err := p.stdout.ReadString('\n')
		res, ok := strings.CutPrefix(line, "RESULT ")
		if err != nil || !ok {
			return nil, fail(i, fmt.Errorf("no RESULT (%v): %q", err, line))
		}
		if err := json.Unmarshal([]byte(res), &out.results[i]); err != nil {
			return nil, fail(i, err)
		}
		if i == len(procs)-1 {
			out.serverCPU = r.serverCPU(ctx) - cpu0
		}
		out.clientCPU += out.results[i].Metrics["cpu_seconds"]
		out.mallocs += out.results[i].Metrics["mallocs"]
		_ = p.stdin.Close()
		if err := p.cmd.Wait(); err != nil || out.results[i].Error != "" {
			return nil, fmt.Errorf("worker %s/%s #%d: %s (%v); stderr: %s", jobs[i].Scenario, jobs[i].Lib, i,
				out.results[i].Error, err, p.stderr.String())
		}
	}
	if spec.count {
		if err := r.mark(ctx, "stop"); err != nil {
			return nil, err
		}
		out.countSeconds = time.Since(countStart).Seconds()
		window := r.mon.window()
		out.counts = make(map[string]int)
		for _, res := range out.results {
			for _, addr := range res.Addrs {
				for label, n := range window[addr] {
					out.counts[label] += n
				}
				delete(window, addr) // an address reported twice counts once
			}
		}
		for _, n := range window[luaClient] {
			out.scriptCalls += n
		}
	}
	return out, nil
}

// mark sends a window marker through the bookkeeping client and waits until
// the MONITOR stream has reached it.
func (r *Runner) mark(ctx context.Context, what string) error {
	if r.mon == nil {
		m, err := StartMonitor(r.cfg.Addr)
		if err != nil {
			return err
		}
		r.mon = m
	}
	r.seq++
	mark := fmt.Sprintf("%s%s:%d", markPrefix, what, r.seq)
	seen := r.mon.expect(mark)
	if err := r.admin.Echo(ctx, mark).Err(); err != nil {
		return err
	}
	select {
	case <-seen:
		return nil
	case <-time.After(30 * time.Second):
		return fmt.Errorf("MONITOR did not show marker %s", mark)
	case <-ctx.Done():
		return ctx.Err()
	}
}

// lockedWriter serializes writes to a strings.Builder shared with readers.
type lockedWriter struct {
	mu sync.Mutex
	w  *strings.Builder
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.w.Len() > 64<<10 {
		return len(p), nil
	}
	return l.w.Write(p)
}

// duration is d, or 0 when the config runs by op count.
func (r *Runner) duration(d time.Duration) time.Duration {
	if r.cfg.Ops > 0 {
		return 0
	}
	return d
}

// rounds runs fn for every round and library in interleaved order.
func (r *Runner) rounds(libs []string, fn func(round int, lib string) error) error {
	for round := 1; round <= r.cfg.Rounds; round++ {
		for _, lib := range libs {
			if err := fn(round, lib); err != nil {
				return fmt.Errorf("round %d, %s: %w", round, lib, err)
			}
		}
	}
	return nil
}

func (r *Runner) uncontended(ctx context.Context) error {
	libs := r.cfg.Libs
	if r.cfg.enabled("floor") {
		// The floor's bare scripts run in the same rounds, so that the
		// library and the protocol under it are compared on equal terms.
		libs = append(slices.Clone(libs), floorLibs...)
	}
	return r.rounds(libs, func(round int, lib string) error {
		job := Job{Scenario: scUncontended, Lib: lib, Addr: r.cfg.Addr, Key: r.key("u", lib), Ops: r.cfg.Ops, OpsTimeout: r.cfg.OpsTimeout,
			CPUProfile: r.profilePath("uncontended", lib, round, "")}
		s, err := r.spawn(ctx, []Job{job}, runSpec{duration: r.duration(r.cfg.Duration)})
		if err != nil {
			return err
		}
		res := s.results[0]
		rate := float64(res.Ops) / res.Seconds
		if slices.Contains(floorLibs, lib) {
			r.report.add(grpFloor, floorScenario, "lock+unlock pairs/s", lib, higher, rate)
			r.addCPUTo(grpFloor, floorScenario, "pair", lib, s, float64(res.Ops))
			r.logf("uncontended   round %d %-17s %5.0f pairs/s (floor)", round, lib, rate)
			return nil
		}
		r.report.add(grpCompare, "uncontended, 1 goroutine", "lock+unlock pairs/s", lib, higher, rate)
		r.addCPU("uncontended, 1 goroutine", "pair", lib, s, float64(res.Ops))
		r.logf("uncontended   round %d %-12s %10.0f pairs/s", round, lib, rate)
		return nil
	})
}

func (r *Runner) parallel(ctx context.Context) error {
	return r.rounds(r.cfg.Libs, func(round int, lib string) error {
		job := Job{Scenario: scParallel, Lib: lib, Addr: r.cfg.Addr, Key: r.key("p", lib), Ops: r.cfg.Ops, OpsTimeout: r.cfg.OpsTimeout,
			CPUProfile: r.profilePath("parallel", lib, round, "")}
		s, err := r.spawn(ctx, []Job{job}, runSpec{duration: r.duration(r.cfg.Duration)})
		if err != nil {
			return err
		}
		res := s.results[0]
		rate := float64(res.Ops) / res.Seconds
		r.report.add(grpCompare, "uncontended, GOMAXPROCS goroutines, distinct keys", "lock+unlock pairs/s (total)", lib, higher, rate)
		r.addCPU("uncontended, GOMAXPROCS goroutines, distinct keys", "pair", lib, s, float64(res.Ops))
		r.logf("parallel      round %d %-12s %10.0f pairs/s", round, lib, rate)
		return nil
	})
}

// floorScenario is the floor group's one scenario.
const floorScenario = "bare scripts, uncontended, 1 goroutine"

// floor runs the two pairs of bare lock scripts (floor.go) on their own when
// the uncontended scenario, which interleaves them with the libraries, is
// not run.
func (r *Runner) floor(ctx context.Context) error {
	if r.cfg.enabled("uncontended") {
		return nil
	}
	return r.rounds(floorLibs, func(round int, lib string) error {
		job := Job{Scenario: scUncontended, Lib: lib, Addr: r.cfg.Addr, Key: r.key("f", lib), Ops: r.cfg.Ops, OpsTimeout: r.cfg.OpsTimeout}
		s, err := r.spawn(ctx, []Job{job}, runSpec{duration: r.duration(r.cfg.Duration)})
		if err != nil {
			return err
		}
		res := s.results[0]
		rate := float64(res.Ops) / res.Seconds
		r.report.add(grpFloor, floorScenario, "lock+unlock pairs/s", lib, higher, rate)
		r.addCPUTo(grpFloor, floorScenario, "pair", lib, s, float64(res.Ops))
		r.logf("floor         round %d %-17s %6.0f pairs/s", round, lib, rate)
		return nil
	})
}

// profilePath names a worker's CPU profile file, or "" without --cpuprofile.
func (r *Runner) profilePath(scenario, lib string, round int, proc string) string {
	if r.cfg.ProfileDir == "" {
		return ""
	}
	name := fmt.Sprintf("%s-%s-r%d", scenario, lib, round)
	if proc != "" {
		name += "-" + proc
	}
	// Some library labels are phrases ("ours, no ctx deadline").
	name = strings.NewReplacer(" ", "-", ",", "").Replace(name)
	return filepath.Join(r.cfg.ProfileDir, name+".pprof")
}

// contendedJobs are the worker jobs of one contended run.
func (r *Runner) contendedJobs(lib, key, counterFile, profile string) []Job {
	return r.contendedShape(contendedShape{r.cfg.Procs, r.cfg.Goroutines}, lib, key, counterFile, profile)
}

// contendedShape is how many processes, each with how many goroutines, a
// contended run spreads over.
type contendedShape struct{ procs, goroutines int }

// fairShape is the contended run of the fairness row beside the configured
// one: 4 processes sharing the configured run's goroutines, so that each
// process is a smaller part of the contention.
func (r *Runner) fairShape() contendedShape {
	return contendedShape{4, max(1, r.cfg.Procs*r.cfg.Goroutines/4)}
}

// contendedShape are the worker jobs of one contended run of shape sh.
func (r *Runner) contendedShape(sh contendedShape, lib, key, counterFile, profile string) []Job {
	jobs := make([]Job, sh.procs)
	for p := range jobs {
		jobs[p] = Job{
			Scenario: scContended, Lib: lib, Addr: r.cfg.Addr, Key: key,
			Ops: r.cfg.Ops, OpsTimeout: r.cfg.OpsTimeout, Goroutines: sh.goroutines, Process: p,
			Counter: counterFile, Verify: r.cfg.Verify,
		}
		if profile != "" {
			jobs[p].CPUProfile = strings.Replace(profile, "-x.pprof", fmt.Sprintf("-p%d.pprof", p), 1)
		}
	}
	return jobs
}

// contendedStats are the figures of one contended run.
type contendedStats struct {
	acquisitions     int64
	rate             float64
	handoffP50       float64 // ms
	handoffP99       float64 // ms
	longestWait      float64 // ms
	longestCutOff    float64 // ms, Lock calls the run's end cancelled
	cutOff           int64   // how many
	overlaps, lost   int64
	retries          int64
	perProcess       []int64
	handoffs, waits  int
	processesStarved int
}

func analyzeContended(s *spawned, counter uint64, hasCounter bool) contendedStats {
	var st contendedStats
	var events [][3]int64
	secs := 0.0
	for _, res := range s.results {
		events = append(events, res.Events...)
		st.acquisitions += res.Ops
		st.perProcess = append(st.perProcess, res.Ops)
		st.retries += res.Retries
		secs = max(secs, res.Seconds)
		for _, u := range res.Unfinished {
			st.cutOff++
			st.longestCutOff = max(st.longestCutOff, float64(u)/1e6)
		}
		if res.Ops == 0 {
			st.processesStarved++
		}
	}
	if secs > 0 {
		st.rate = float64(st.acquisitions) / secs
	}
	slices.SortFunc(events, func(a, b [3]int64) int { return cmpInt64(a[1], b[1]) })
	var handoffs []float64
	for i := 1; i < len(events); i++ {
		h := events[i][1] - events[i-1][2]
		if h < 0 {
			st.overlaps++
		}
		handoffs = append(handoffs, float64(h)/1e6)
	}
	for _, e := range events {
		st.longestWait = max(st.longestWait, float64(e[1]-e[0])/1e6)
	}
	slices.Sort(handoffs)
	st.handoffP50 = percentile(handoffs, 0.50)
	st.handoffP99 = percentile(handoffs, 0.99)
	st.handoffs, st.waits = len(handoffs), len(events)
	if hasCounter {
		st.lost = st.acquisitions - int64(counter)
	}
	return st
}

func cmpInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func (r *Runner) contended(ctx context.Context) error {
	shapes := []contendedShape{{r.cfg.Procs, r.cfg.Goroutines}}
	if fair := r.fairShape(); fair.procs != r.cfg.Procs {
		shapes = append(shapes, fair)
	}
	for i, sh := range shapes {
		name := contendedName(sh)
		tag, logName := "c", "contended"
		if i > 0 {
			tag, logName = fmt.Sprintf("c%d", sh.procs), fmt.Sprintf("contended %dp", sh.procs)
		}
		if err := r.contendedRowsOf(ctx, sh, grpCompare, name, r.cfg.Libs, tag, logName); err != nil {
			return err
		}
	}
	return nil
}

// contendedName names the contended scenario of shape sh.
func contendedName(sh contendedShape) string {
	return fmt.Sprintf("contended, %d processes × %d goroutines, one key", sh.procs, sh.goroutines)
}

// shareMetric names the fairness row: the smallest share of the run's
// acquisitions one process got, the lowest over the rounds.
const shareMetric = "smallest process's share of acquisitions (%)"

// contendedRows runs the contended scenario for libs, interleaved, and adds
// its rows to group under scenario name (also used by the fair lock group).
func (r *Runner) contendedRows(ctx context.Context, group, name string, libs []string, tag, logName string) error {
	return r.contendedRowsOf(ctx, contendedShape{r.cfg.Procs, r.cfg.Goroutines}, group, name, libs, tag, logName)
}

// contendedRowsOf is contendedRows with sh's processes and goroutines.
func (r *Runner) contendedRowsOf(ctx context.Context, sh contendedShape, group, name string, libs []string, tag, logName string) error {
	return r.rounds(libs, func(round int, lib string) error {
		key, profile := r.key(tag, lib), r.profilePath(strings.ReplaceAll(logName, " ", "-"), lib, round, "x")
		s, counter, err := r.spawnCounted(ctx, func(counterFile string) []Job {
			return r.contendedShape(sh, lib, key, counterFile, profile)
		})
		if err != nil {
			return err
		}
		st := analyzeContended(s, counter, true)
		r.addContended(group, name, lib, st)
		r.addCPUTo(group, name, "acquisition", lib, s, float64(st.acquisitions))
		r.logf("%-13s round %d %-12s %10.0f acq/s  hand-off p50 %.3f ms p99 %.3f ms  longest wait %.1f ms (cut off: %d, longest %.1f ms)  per process %v  lost %d overlaps %d retries %d",
			logName, round, lib, st.rate, st.handoffP50, st.handoffP99, st.longestWait, st.cutOff, st.longestCutOff, st.perProcess, st.lost, st.overlaps, st.retries)
		if st.acquisitions == 0 {
			return errors.New("no acquisitions")
		}
		return nil
	})
}

// spawnCounted runs the jobs jobsFor builds for a fresh shared counter file
// (the critical section's non-atomic counter) for the contended duration,
// and returns the run and the counter's final value.
func (r *Runner) spawnCounted(ctx context.Context, jobsFor func(counterFile string) []Job) (*spawned, uint64, error) {
	counterFile, err := createSharedCounter(r.tmp)
	if err != nil {
		return nil, 0, err
	}
	defer os.Remove(counterFile)
	s, err := r.spawn(ctx, jobsFor(counterFile), runSpec{duration: r.duration(r.cfg.ContendedDuration)})
	if err != nil {
		return nil, 0, err
	}
	counter, err := readSharedCounter(counterFile)
	if err != nil {
		return nil, 0, err
	}
	return s, counter, nil
}

// addContended adds the rows of one contended run but its CPU figures.
func (r *Runner) addContended(group, name, lib string, st contendedStats) {
	r.report.add(group, name, "acquisitions/s", lib, higher, st.rate)
	r.report.add(group, name, "hand-off p50 (ms)", lib, lower, st.handoffP50)
	r.report.add(group, name, "hand-off p99 (ms)", lib, lower, st.handoffP99)
	r.report.add(group, name, "longest wait (ms)", lib, lower, st.longestWait)
	r.report.addAgg(group, name, "longest wait cut off by the run's end (ms)", lib, lower, aggMax, st.longestCutOff)
	if len(st.perProcess) > 1 && st.acquisitions > 0 {
		r.report.addAgg(group, name, shareMetric, lib, higher, aggMin, 100*float64(slices.Min(st.perProcess))/float64(st.acquisitions))
	}
	if r.cfg.Ops > 0 {
		// By op count every Lock call must finish: one still waiting
		// at the time bound missed its wake-up.
		r.report.addAgg(group, name, "stalled Lock calls (by op count)", lib, lower, aggMax, float64(st.cutOff))
	}
	r.report.addAgg(group, name, "lost updates (shared non-atomic counter)", lib, lower, aggMax, float64(st.lost))
	r.report.addAgg(group, name, "overlapping holds", lib, lower, aggMax, float64(st.overlaps))
	r.report.addAgg(group, name, "lock calls given up and repeated", lib, lower, aggSum, float64(st.retries))
}

func (r *Runner) cost(ctx context.Context) error {
	acc := func(lib string) *costAcc {
		a := r.costAcc[lib]
		if a == nil {
			a = &costAcc{counts: make(map[string]int)}
			r.costAcc[lib] = a
		}
		return a
	}
	return r.rounds(r.cfg.Libs, func(round int, lib string) error {
		// Uncontended: a fixed number of pairs.
		ops := r.cfg.CostOps
		if r.cfg.Ops > 0 {
			ops = r.cfg.Ops
		}
		job := Job{Scenario: scUncontended, Lib: lib, Addr: r.cfg.Addr, Key: r.key("cu", lib), Ops: ops, OpsTimeout: r.cfg.OpsTimeout}
		s, err := r.spawn(ctx, []Job{job}, runSpec{count: true})
		if err != nil {
			return err
		}
		uc := sumCounts(s.counts)
		total, pubsub := uc.total, uc.pubsub
		pairs := float64(s.results[0].Ops)
		r.report.add(grpCompare, "Redis cost (MONITOR, top-level commands)", "commands per uncontended lock+unlock", lib, lower, float64(total)/pairs)
		r.addSideCounts(grpCompare, "Redis cost (MONITOR, top-level commands)", ", uncontended run", lib, s)
		// Contended: the contended scenario, by time.
		counterFile, err := createSharedCounter(r.tmp)
		if err != nil {
			return err
		}
		defer os.Remove(counterFile)
		jobs := r.contendedJobs(lib, r.key("cc", lib), counterFile, "")
		s2, err := r.spawn(ctx, jobs, runSpec{duration: r.duration(r.cfg.CostDuration), count: true})
		if err != nil {
			return err
		}
		counter, err := readSharedCounter(counterFile)
		if err != nil {
			return err
		}
		st := analyzeContended(s2, counter, true)
		cc := sumCounts(s2.counts)
		total2, pubsub2 := cc.total, cc.pubsub
		acq := float64(st.acquisitions)
		r.report.add(grpCompare, "Redis cost (MONITOR, top-level commands)", "commands per contended acquisition", lib, lower, float64(total2)/acq)
		r.report.add(grpCompare, "Redis cost (MONITOR, top-level commands)", "  of which pub/sub (SUBSCRIBE etc.)", lib, lower, float64(pubsub2)/acq)
		r.addSideCounts(grpCompare, "Redis cost (MONITOR, top-level commands)", ", contended run", lib, s2)
		r.report.addAgg(grpCompare, "Redis cost (MONITOR, top-level commands)", "lost updates during cost runs", lib, lower, aggMax, float64(st.lost))
		a := acc(lib)
		a.ops += st.acquisitions
		for label, n := range s2.counts {
			a.counts[label] += n
		}
		r.logf("cost          round %d %-12s %.2f cmds/pair (%d pub/sub)  %.2f cmds/contended acquisition (%.3f pub/sub) over %d acquisitions",
			round, lib, float64(total)/pairs, pubsub, float64(total2)/acq, float64(pubsub2)/acq, st.acquisitions)
		if st.acquisitions == 0 || pairs == 0 {
			return errors.New("no acquisitions")
		}
		return nil
	})
}

// addCPU records client and server CPU time per operation.
func (r *Runner) addCPU(scenario, op, lib string, s *spawned, ops float64) {
	r.addCPUTo(grpCompare, scenario, op, lib, s, ops)
}

func (r *Runner) addCPUTo(group, scenario, op, lib string, s *spawned, ops float64) {
	if ops <= 0 {
		return
	}
	r.report.add(group, scenario, "client CPU µs per "+op, lib, lower, s.clientCPU/ops*1e6)
	r.report.add(group, scenario, "redis-server CPU µs per "+op, lib, lower, s.serverCPU/ops*1e6)
	r.report.add(group, scenario, "client allocations per "+op, lib, lower, s.mallocs/ops)
}

// cmdCounts are a counted window's top-level commands by what they are.
type cmdCounts struct {
	// total are the operations' round trips: every command but the two
	// kinds below; pubsub are the subscription commands among them.
	total, pubsub int
	// reg are the commands on a client's registration record, which a
	// client sends in the background whatever it does (at start, after its
	// holds change, periodically; DEL at Close).
	reg int
	// setup are the handshakes of connections dialled within the window
	// (HELLO, CLIENT SETINFO, ...): a pool grows when a background command
	// (a registration write) needs a connection while the operation holds
	// the only one, a one-off cost that is no round trip of the operation.
	setup int
}

// sumCounts adds up command counts by kind.
func sumCounts(counts map[string]int) cmdCounts {
	var c cmdCounts
	for label, n := range counts {
		switch {
		case isRegistration(label):
			c.reg += n
		case isHandshake(label):
			c.setup += n
		default:
			c.total += n
			if isPubSubCommand(label) {
				c.pubsub += n
			}
		}
	}
	return c
}

// addSideCounts adds the rows of the commands left out of a window's round
// trips: the registration record's writes per second, and connection
// handshakes.
func (r *Runner) addSideCounts(group, scenario, suffix, lib string, s *spawned) {
	c := sumCounts(s.counts)
	rate := 0.0
	if s.countSeconds > 0 {
		rate = float64(c.reg) / s.countSeconds
	}
	r.report.add(group, scenario, regMetric+suffix, lib, lower, rate)
	r.report.add(group, scenario, setupMetric+suffix, lib, lower, float64(c.setup))
}

// regMetric names the rows of the registration record's commands per
// second in a counted window: background writes of every redisson.Client
// (at start, after its holds change, at most 4 a second, and periodically),
// left out of the round trips per operation and shown here so that their
// cost stays visible.
const regMetric = "registration record writes/s (not in the round trips)"

// setupMetric names the rows of the handshake commands of connections
// dialled within a counted window.
const setupMetric = "connection handshake commands in the window (not in the round trips)"

func (r *Runner) watchdog(ctx context.Context) error {
	for _, n := range r.cfg.LockCounts {
		name := fmt.Sprintf("watchdog, %d locks held %d periods (lease %v, period %v)", n, r.cfg.Periods, r.cfg.Watchdog, r.cfg.Watchdog/3)
		err := r.rounds([]string{libOurs, libTimer}, func(round int, lib string) error {
			job := Job{Scenario: scWatchdog, Lib: lib, Addr: r.cfg.Addr, Key: r.key(fmt.Sprintf("w%d", n), lib),
				Locks: n, Watchdog: r.cfg.Watchdog, Periods: r.cfg.Periods}
			s, err := r.spawn(ctx, []Job{job}, runSpec{})
			if err != nil {
				return err
			}
			m := s.results[0].Metrics
			r.report.add(grpWatchdog, name, "renewal round trips per period", lib, lower, m["round_trips_per_period"])
			r.report.add(grpWatchdog, name, "renewal scripts per period", lib, lower, m["scripts_per_period"])
			r.report.add(grpWatchdog, name, "leases renewed per period", lib, higher, m["renewed_per_period"])
			r.report.add(grpWatchdog, name, "client CPU seconds (hold phase)", lib, lower, m["cpu_seconds"])
			r.report.add(grpWatchdog, name, "allocations (hold phase)", lib, lower, m["mallocs"])
			r.report.addAgg(grpWatchdog, name, "leases lapsed", lib, lower, aggMax, m["lapses"])
			r.report.addAgg(grpWatchdog, name, fmt.Sprintf("locks not acquired within %v", acquireBound), lib, lower, aggMax, m["not_acquired"])
			r.logf("watchdog %6d round %d %-14s %8.1f round trips/period  %8.1f scripts/period  cpu %.3fs  mallocs %.0f  lapses %.0f  not acquired %.0f",
				n, round, lib, m["round_trips_per_period"], m["scripts_per_period"], m["cpu_seconds"], m["mallocs"], m["lapses"], m["not_acquired"])
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

func (r *Runner) waiters(ctx context.Context) error {
	name := fmt.Sprintf("waiters, %d goroutines on %d locks held by another client, %d releases", r.cfg.Waiters, r.cfg.WaiterLocks, min(r.cfg.Releases, r.cfg.WaiterLocks))
	return r.rounds([]string{libOurs}, func(round int, lib string) error {
		job := Job{Scenario: scWaiters, Lib: lib, Addr: r.cfg.Addr, Key: r.key("wt", lib),
			Waiters: r.cfg.Waiters, WaiterLocks: r.cfg.WaiterLocks, Releases: r.cfg.Releases}
		s, err := r.spawn(ctx, []Job{job}, runSpec{})
		if err != nil {
			return err
		}
		m := s.results[0].Metrics
		r.report.add(grpWaiters, name, "pub/sub connections (client Stats)", lib, lower, m["pubsub_connections"])
		r.report.add(grpWaiters, name, "pub/sub connections (CLIENT LIST TYPE pubsub)", lib, lower, m["server_pubsub_connections"])
		r.report.add(grpWaiters, name, "heap bytes per waiter", lib, lower, m["heap_bytes_per_waiter"])
		r.report.add(grpWaiters, name, "stack bytes per waiter", lib, lower, m["stack_bytes_per_waiter"])
		r.report.add(grpWaiters, name, "wake-up after release p50 (ms)", lib, lower, m["wake_ms_p50"])
		r.report.add(grpWaiters, name, "wake-up after release p99 (ms)", lib, lower, m["wake_ms_p99"])
		r.report.Raw = append(r.report.Raw, RawSamples{Scenario: name, Metric: "wake-up after release (ms)", Lib: lib, Round: round, Samples: s.results[0].Samples})
		r.logf("waiters       round %d %-12s conns %.0f (server %.0f)  heap %.0f B/waiter  stack %.0f B/waiter  wake p50 %.3f ms p99 %.3f ms",
			round, lib, m["pubsub_connections"], m["server_pubsub_connections"], m["heap_bytes_per_waiter"], m["stack_bytes_per_waiter"], m["wake_ms_p50"], m["wake_ms_p99"])
		return nil
	})
}
