package demo

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson/internal/cli/cliflag"
	"github.com/goredisson/redisson/internal/cli/conn"
	"github.com/goredisson/redisson/internal/cli/run"
	"github.com/goredisson/redisson/internal/redistest"
)

// Demo defaults: about 10 s on a 2-core machine with the private server.
const (
	defaultDemoProcs   = 2
	defaultDemoWorkers = 8
	defaultDemoOps     = 20000
)

const demoDescription = `
Shows the lock at work: --procs worker processes (this binary re-run as a
hidden "__demo-worker" command), each with --workers goroutines, contend on
ONE lock. Every acquisition increments a plain Redis counter with GET then SET
inside the critical section, a read-modify-write that loses updates unless the
lock really excludes. --ops acquisitions are made in all: each process does
its share (--ops/--procs), each goroutine its share of that; no shared ticket
adds round trips to the measurement. Locks use the watchdog unless --lease.

Without --redis and $REDIS_URL the demo starts a private redis-server (on a
free loopback port, no persistence) and stops it at the end, also on Ctrl-C.

Progress: a bar redrawn in place on a terminal, a plain line every second
otherwise. At the end it prints:
  acquisitions/s     --ops divided by the time from the start signal until
                     every worker reported done
  hand-off latency   p50/p99/max of the time from a release to the next
                     acquisition returning, across processes: each worker
                     reports the wall-clock time Lock returned and Unlock was
                     called; all critical sections, sorted by acquire time,
                     give acquire[i] - release[i-1]. A negative one would be
                     an overlap of two critical sections, and fails the demo.
  round trips        top-level commands the workers' connections sent, per
                     acquisition, from a MONITOR connection on every master:
                     commands run inside scripts ("[0 lua]" lines) are not
                     counted, nor the demo's own connections (MONITOR, its
                     bookkeeping); the counter's GET and SET are shown apart
                     from the lock's commands
  lost updates       --ops minus the counter; any lost update, overlap or
                     worker error makes the exit code 1

Exit codes: 0 all fine ("0 lost updates"); 1 error, lost updates or overlaps;
2 usage; 130/143 interrupted by SIGINT/SIGTERM.`

var demoExamples = fmt.Sprintf(`  redisson demo                                  # %d processes × %d goroutines, %d acquisitions
  make demo ARGS="--procs 4 --workers 4"
  redisson demo --ops 2000 --lease 5s            # fixed 5 s lease, no watchdog
  redisson demo --redis redis://localhost:6379   # an existing server
  redisson demo --cluster --redis redis://127.0.0.1:7000,127.0.0.1:7001,127.0.0.1:7002`,
	defaultDemoProcs, defaultDemoWorkers, defaultDemoOps)

// section is one critical section: when Lock returned and Unlock was called
// (Unix ns).
type section struct{ acq, rel int64 }

// demoWorker is the parent's view of one worker process.
type demoWorker struct {
	id       int
	ops      int
	cmd      *exec.Cmd
	stdin    io.WriteCloser
	ready    chan struct{}
	finished chan struct{} // its stdout ended
	sections []section     // written by the reader until finished
	doneAt   time.Time
	doneN    int64
	errMsg   string
	badLines int
}

func Command(args []string) int {
	fs := cliflag.NewFlagSet("demo", "redisson demo [--procs P] [--workers N] [--ops K] [--lease D] [connection flags]",
		demoDescription, demoExamples)
	var cf conn.Flags
	cf.Register(fs)
	procs := fs.Int("procs", defaultDemoProcs, "`P` worker processes")
	workers := fs.Int("workers", defaultDemoWorkers, "`N` goroutines per process, all on the one lock")
	ops := fs.Int("ops", defaultDemoOps, "`K` acquisitions in all, shared out between the processes and their goroutines")
	lease := fs.Duration("lease", 0, "fixed lease `D` of each acquisition (at least 1ms), no watchdog;\n"+
		"leave it out for the watchdog")
	pos, code, done := cliflag.ParseFlags(fs, args, false)
	if done {
		return code
	}
	switch {
	case len(pos) > 0:
		return cliflag.UsageError(fs, "unexpected argument %q", pos[0])
	case *procs < 1:
		return cliflag.UsageError(fs, "--procs must be at least 1")
	case *workers < 1:
		return cliflag.UsageError(fs, "--workers must be at least 1")
	case *ops < 1:
		return cliflag.UsageError(fs, "--ops must be at least 1")
	}
	if code, ok := cliflag.CheckLease(fs, *lease); !ok {
		return code
	}

	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	var stopSig atomic.Value // os.Signal that interrupted the demo
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	go func() {
		select {
		case s := <-sigs:
			stopSig.Store(s)
			cancel(fmt.Errorf("interrupted by %v", s))
		case <-ctx.Done():
		}
	}()
	interrupted := func() (int, bool) {
		if s, ok := stopSig.Load().(os.Signal); ok {
			fmt.Fprintf(os.Stderr, "\nredisson demo: interrupted (%v)\n", s)
			return cliflag.ExitSignalBase + run.SignalNumber(s), true
		}
		return 0, false
	}

	private := !cf.Configured()
	var server *redistest.Server
	if private {
		var err error
		server, err = redistest.Start(ctx, redistest.Options{})
		if err != nil {
			if c, ok := interrupted(); ok {
				return c
			}
			return cliflag.Errorf(fs.Name(), "%v", err)
		}
		defer server.Stop()
		cf.Urls = conn.UrlList{"redis://" + server.Addr()}
	}
	cn, code := conn.ConnectOrExit(ctx, fs, &cf, nil)
	if cn == nil {
		if c, ok := interrupted(); ok {
			return c
		}
		return code
	}
	defer cn.Close()
	code = runDemo(ctx, fs.Name(), cn, &cf, demoSettings{
		procs: *procs, workers: *workers, ops: *ops, lease: *lease, private: private,
	})
	if c, ok := interrupted(); ok {
		return c
	}
	return code
}

type demoSettings struct {
	procs, workers, ops int
	lease               time.Duration
	private             bool
}

func runDemo(ctx context.Context, prog string, cn *conn.Conn, cf *conn.Flags, s demoSettings) int {
	id := make([]byte, 4)
	_, _ = rand.Read(id)
	runID := hex.EncodeToString(id)
	lockName := "redisson-demo:" + runID
	counterKey := lockName + ":counter"
	startMarker, endMarker := "redisson-demo:"+runID+":start", "redisson-demo:"+runID+":end"

	version := serverVersion(ctx, cn.RDB)
	if err := cn.RDB.Set(ctx, counterKey, 0, 0).Err(); err != nil {
		return cliflag.Errorf(prog, "SET %s: %v", counterKey, err)
	}
	defer func() {
		dctx, cancel := context.WithTimeout(context.Background(), cf.Timeout)
		defer cancel()
		cn.RDB.Del(dctx, counterKey)
		cn.RDB.Del(dctx, lockName)
	}()

	targets, err := cn.Masters(ctx)
	if err != nil {
		return cliflag.Errorf(prog, "%v", err)
	}
	var monitors []*monitor
	defer func() {
		for _, m := range monitors {
			m.Close()
		}
	}()
	var monAddrs []string
	for _, t := range targets {
		m, err := startMonitor(ctx, t.Addr, t.Opts, startMarker, endMarker)
		if err != nil {
			return cliflag.Errorf(prog, "%v", err)
		}
		monitors = append(monitors, m)
		monAddrs = append(monAddrs, t.Addr)
	}

	// Settings.
	perProc := s.ops / s.procs
	fmt.Printf("redisson demo: %d processes × %d goroutines contend on one lock\n", s.procs, s.workers)
	row := func(k, format string, a ...any) { fmt.Printf("  %-12s %s\n", k, fmt.Sprintf(format, a...)) }
	row("processes", "%d (this binary re-run as %q)", s.procs, WorkerName)
	row("workers", "%d goroutines per process, %d in all", s.workers, s.procs*s.workers)
	shares := fmt.Sprintf("%d per process", perProc)
	if s.ops%s.procs != 0 {
		shares = fmt.Sprintf("%d-%d per process", perProc, perProc+1)
	}
	row("ops", "%d acquisitions in all (%s, split between its goroutines)", s.ops, shares)
	if s.lease > 0 {
		row("lease", "fixed %v per acquisition (no watchdog)", s.lease)
	} else {
		row("lease", "watchdog (30s lease, renewed every 10s)")
	}
	row("lock", "%s; counter %s (GET then SET inside the lock)", lockName, counterKey)
	where := cn.Display
	if version != "" {
		where += ", redis-server " + version
	}
	if s.private {
		where += ", private (started for this demo, stopped at the end)"
	} else {
		where += ", given by --redis / $REDIS_URL"
	}
	row("Redis", "%s", where)
	row("round trips", "counted with MONITOR on %s", strings.Join(monAddrs, ", "))
	fmt.Println()

	// Start the workers.
	exe, err := os.Executable()
	if err != nil {
		return cliflag.Errorf(prog, "cannot find my own executable: %v", err)
	}
	var (
		connMu    sync.Mutex
		connAddrs = map[string]bool{}
		progress  atomic.Int64
		ws        []*demoWorker
	)
	defer func() {
		// Make sure no worker outlives the demo.
		for _, w := range ws {
			_ = w.stdin.Close()
		}
		for _, w := range ws {
			select {
			case <-w.finished:
			case <-time.After(10 * time.Second):
				_ = w.cmd.Process.Kill()
			}
			_ = w.cmd.Wait()
		}
	}()
	for i := range s.procs {
		share := perProc
		if i < s.ops%s.procs {
			share++
		}
		args := []string{WorkerName,
			"--lock", lockName, "--counter", counterKey,
			"--workers", strconv.Itoa(s.workers), "--ops", strconv.Itoa(share),
			"--lease", s.lease.String(), "--timeout", cf.Timeout.String(),
		}
		if cf.Cluster {
			args = append(args, "--cluster")
		}
		args = append(args, cf.Tls.Args()...)
		cmd := exec.Command(exe, args...)
		// The URL travels in the environment: no password on a command line.
		cmd.Env = append(os.Environ(), "REDIS_URL="+cf.RawValue())
		cmd.Stderr = os.Stderr
		stdin, err := cmd.StdinPipe()
		if err != nil {
			return cliflag.Errorf(prog, "%v", err)
		}
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			return cliflag.Errorf(prog, "%v", err)
		}
		if err := cmd.Start(); err != nil {
			return cliflag.Errorf(prog, "start worker: %v", err)
		}
		w := &demoWorker{id: i, ops: share, cmd: cmd, stdin: stdin, ready: make(chan struct{}), finished: make(chan struct{})}
		ws = append(ws, w)
		go w.read(stdout, &progress, func(addr string) {
			connMu.Lock()
			connAddrs[addr] = true
			connMu.Unlock()
		})
	}

	// Wait until every worker is connected and ready.
	readyCtx, readyCancel := context.WithTimeout(ctx, 30*time.Second)
	defer readyCancel()
	for _, w := range ws {
		select {
		case <-w.ready:
		case <-w.finished:
			return cliflag.Errorf(prog, "worker %d ended before it was ready: %s", w.id, w.failure())
		case <-readyCtx.Done():
			return cliflag.Errorf(prog, "workers not ready: %v", context.Cause(readyCtx))
		}
	}

	// Start counting: once MONITOR shows the start marker, every command
	// sent before it has gone by.
	if err := markAll(ctx, targets, monitors, startMarker, 0); err != nil {
		return cliflag.Errorf(prog, "%v", err)
	}
	start := time.Now()
	for _, w := range ws {
		if _, err := io.WriteString(w.stdin, "go\n"); err != nil {
			return cliflag.Errorf(prog, "start worker %d: %v", w.id, err)
		}
	}

	// Progress until every worker's output has ended.
	allDone := make(chan struct{})
	go func() {
		for _, w := range ws {
			<-w.finished
		}
		close(allDone)
	}()
	fi, _ := os.Stdout.Stat()
	tty := fi != nil && fi.Mode()&os.ModeCharDevice != 0
	every := time.Second
	if tty {
		every = 100 * time.Millisecond
	}
	tick := time.NewTicker(every)
	defer tick.Stop()
	show := func(final bool) {
		n := progress.Load()
		rate := float64(n) / max(time.Since(start).Seconds(), 1e-9)
		if tty {
			fmt.Printf("\r%s %d/%d  %.0f acq/s\x1b[K", bar(n, int64(s.ops), 30), n, s.ops, rate)
			if final {
				fmt.Println()
			}
		} else if !final {
			fmt.Printf("progress %d/%d  %.0f acq/s\n", n, s.ops, rate)
		}
	}
wait:
	for {
		select {
		case <-tick.C:
			show(false)
		case <-allDone:
			break wait
		case <-ctx.Done():
			if tty {
				fmt.Println()
			}
			return cliflag.ExitError // the caller reports the signal
		}
	}
	show(true)

	var end time.Time
	failed := false
	all := ws
	for _, w := range all {
		err := w.cmd.Wait()
		if w.doneAt.After(end) {
			end = w.doneAt
		}
		if w.errMsg != "" || err != nil || w.doneAt.IsZero() {
			failed = true
			fmt.Fprintf(os.Stderr, "%s: worker %d failed: %s\n", prog, w.id, w.failure())
		}
	}
	ws = nil // all waited for
	if failed {
		return cliflag.ExitError
	}
	elapsed := end.Sub(start)

	if err := markAll(ctx, targets, monitors, endMarker, 1); err != nil {
		return cliflag.Errorf(prog, "%v", err)
	}
	got, err := cn.RDB.Get(ctx, counterKey).Int64()
	if err != nil {
		return cliflag.Errorf(prog, "GET %s: %v", counterKey, err)
	}

	// Hand-off latency across all processes.
	var secs []section
	for _, w := range all {
		secs = append(secs, w.sections...)
	}
	sort.Slice(secs, func(i, j int) bool { return secs[i].acq < secs[j].acq })
	var handoffs []time.Duration
	overlaps := 0
	for i := 1; i < len(secs); i++ {
		d := time.Duration(secs[i].acq - secs[i-1].rel)
		if d < 0 {
			overlaps++
		}
		handoffs = append(handoffs, d)
	}
	sort.Slice(handoffs, func(i, j int) bool { return handoffs[i] < handoffs[j] })

	// Round trips: commands from the workers' own connections only.
	workerCmds := map[string]int64{}
	var workerTotal, otherTotal, scripted, registration int64
	connMu.Lock()
	for _, m := range monitors {
		counts, sc := m.result()
		scripted += sc
		registration += m.registrations()
		for addr, byCmd := range counts {
			for c, n := range byCmd {
				if connAddrs[addr] {
					workerCmds[c] += n
					workerTotal += n
				} else {
					otherTotal += n
				}
			}
		}
	}
	connMu.Unlock()
	matched := true
	if workerTotal == 0 && otherTotal > 0 {
		// The workers' local addresses are not what the server sees (NAT,
		// a proxy): count every client but ours instead.
		matched = false
		for _, m := range monitors {
			counts, _ := m.result()
			for _, byCmd := range counts {
				for c, n := range byCmd {
					workerCmds[c] += n
				}
			}
		}
		workerTotal, otherTotal = otherTotal, 0
	}
	counterCmds := workerCmds["get"] + workerCmds["set"]
	perAcq := func(n int64) float64 { return float64(n) / float64(s.ops) }

	fmt.Println()
	fmt.Println("results")
	row("time", "%.2fs", elapsed.Seconds())
	row("throughput", "%.0f acquisitions/s", float64(s.ops)/elapsed.Seconds())
	if len(handoffs) > 0 {
		row("hand-off", "p50 %s  p99 %s  max %s  (release → next acquire, %d hand-offs)",
			fmtDur(quantile(handoffs, 0.50)), fmtDur(quantile(handoffs, 0.99)), fmtDur(handoffs[len(handoffs)-1]), len(handoffs))
	}
	row("round trips", "%.2f per acquisition: %.2f lock + %.2f counter (GET, SET)",
		perAcq(workerTotal), perAcq(workerTotal-counterCmds), perAcq(counterCmds))
	row("", "%s", breakdown(workerCmds, s.ops))
	note := fmt.Sprintf("top-level commands of the workers' connections; %d commands run inside scripts not counted", scripted)
	if !matched {
		note = fmt.Sprintf("top-level commands of all clients: the server sees the workers under other addresses (NAT or proxy?); %d commands run inside scripts not counted", scripted)
	}
	if otherTotal > 0 {
		note += fmt.Sprintf("; %d commands of other clients ignored", otherTotal)
	}
	if registration > 0 {
		note += fmt.Sprintf("; %d writes of the clients' registration records (background, at most 4/s per client) not counted", registration)
	}
	row("", "(%s)", note)

	lost := int64(s.ops) - got
	code := cliflag.ExitOK
	if overlaps > 0 {
		fmt.Fprintf(os.Stderr, "%s: %d critical sections began before the previous one ended (mutual exclusion violated, or the wall clock was stepped)\n", prog, overlaps)
		code = cliflag.ExitError
	}
	switch {
	case lost == 0:
		row("counter", "%d of %d: 0 lost updates", got, s.ops)
	case lost > 0:
		row("counter", "%d of %d", got, s.ops)
		fmt.Fprintf(os.Stderr, "%s: %d LOST UPDATES: the counter is %d after %d increments under the lock\n", prog, lost, got, s.ops)
		code = cliflag.ExitError
	default:
		row("counter", "%d of %d", got, s.ops)
		fmt.Fprintf(os.Stderr, "%s: the counter is %d, more than the %d increments: someone else wrote it\n", prog, got, s.ops)
		code = cliflag.ExitError
	}
	return code
}

// markAll sends marker with ECHO to every monitored server and waits until
// each MONITOR stream has shown it.
func markAll(ctx context.Context, targets []conn.MonTarget, monitors []*monitor, marker string, i int) error {
	mctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	for _, t := range targets {
		if err := t.Client.Echo(mctx, marker).Err(); err != nil {
			return fmt.Errorf("ECHO on %s: %w", t.Addr, err)
		}
	}
	for _, m := range monitors {
		if err := m.waitMarker(mctx, i); err != nil {
			return err
		}
	}
	return nil
}

// read consumes the worker's JSON lines until its stdout ends.
func (w *demoWorker) read(r io.Reader, progress *atomic.Int64, conn func(string)) {
	defer close(w.finished)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	readyClosed := false
	for sc.Scan() {
		line := sc.Bytes()
		if a, r, ok := parseSection(line); ok {
			w.sections = append(w.sections, section{a, r})
			progress.Add(1)
			continue
		}
		var m workerMsg
		if err := json.Unmarshal(line, &m); err != nil {
			w.badLines++
			continue
		}
		switch {
		case m.Conn != "":
			conn(m.Conn)
		case m.Ready && !readyClosed:
			readyClosed = true
			close(w.ready)
		case m.Done:
			w.doneAt, w.doneN = time.Now(), m.N
		case m.Error != "":
			w.errMsg = m.Error
		}
	}
	_, _ = io.Copy(io.Discard, r)
}

// parseSection is the fast path for the {"a":<ns>,"r":<ns>} lines.
func parseSection(b []byte) (acq, rel int64, ok bool) {
	s := string(b)
	rest, found := strings.CutPrefix(s, `{"a":`)
	if !found {
		return 0, 0, false
	}
	as, rest, found := strings.Cut(rest, `,"r":`)
	if !found {
		return 0, 0, false
	}
	rs, found := strings.CutSuffix(rest, "}")
	if !found {
		return 0, 0, false
	}
	a, err1 := strconv.ParseInt(as, 10, 64)
	r, err2 := strconv.ParseInt(rs, 10, 64)
	return a, r, err1 == nil && err2 == nil
}

// failure describes why a worker failed, after its stdout ended.
func (w *demoWorker) failure() string {
	msg := w.errMsg
	if msg == "" {
		msg = "no error reported"
	}
	if ps := w.cmd.ProcessState; ps != nil {
		msg += fmt.Sprintf(" (%v)", ps)
	}
	if w.doneN != 0 && w.doneN != int64(w.ops) {
		msg += fmt.Sprintf("; made %d of %d acquisitions", w.doneN, w.ops)
	}
	return msg
}

func serverVersion(ctx context.Context, rdb redis.UniversalClient) string {
	var (
		info string
		err  error
		mu   sync.Mutex
	)
	if c, ok := rdb.(*redis.ClusterClient); ok {
		err = c.ForEachMaster(ctx, func(ctx context.Context, node *redis.Client) error {
			i, err := node.Info(ctx, "server").Result()
			if err == nil {
				mu.Lock()
				info = i
				mu.Unlock()
			}
			return err
		})
	} else {
		info, err = rdb.Info(ctx, "server").Result()
	}
	if err != nil {
		return ""
	}
	return redistest.ParseInfo(info)["redis_version"]
}

func bar(n, total int64, width int) string {
	if total <= 0 {
		total = 1
	}
	k := int(min(n, total) * int64(width) / total)
	return "[" + strings.Repeat("#", k) + strings.Repeat(".", width-k) + "]"
}

func quantile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(q*float64(len(sorted)-1) + 0.5)
	return sorted[min(max(i, 0), len(sorted)-1)]
}

func fmtDur(d time.Duration) string {
	switch {
	case d < 0:
		return "-" + fmtDur(-d)
	case d < time.Millisecond:
		return fmt.Sprintf("%dµs", d.Microseconds())
	case d < time.Second:
		return fmt.Sprintf("%.2fms", float64(d)/float64(time.Millisecond))
	}
	return fmt.Sprintf("%.2fs", d.Seconds())
}

// breakdown lists commands per acquisition, most frequent first.
func breakdown(cmds map[string]int64, ops int) string {
	type kv struct {
		cmd string
		n   int64
	}
	var l []kv
	for c, n := range cmds {
		l = append(l, kv{c, n})
	}
	sort.Slice(l, func(i, j int) bool {
		if l[i].n != l[j].n {
			return l[i].n > l[j].n
		}
		return l[i].cmd < l[j].cmd
	})
	parts := make([]string, 0, len(l))
	for _, e := range l {
		p := fmt.Sprintf("%s %d", strings.ToUpper(e.cmd), e.n)
		if per := float64(e.n) / float64(ops); per >= 0.001 {
			p += fmt.Sprintf(" (%.3f)", per)
		}
		parts = append(parts, p)
	}
	if len(parts) == 0 {
		return "no commands seen"
	}
	return strings.Join(parts, ", ")
}
