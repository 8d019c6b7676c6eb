package demo

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/goredisson/redisson/internal/cli/cliflag"
	"github.com/goredisson/redisson/internal/cli/conn"
)

// demoRun is one run of the demo: its names, its monitors and its workers.
type demoRun struct {
	prog                   string
	cn                     *conn.Conn
	cf                     *conn.Flags
	s                      demoSettings
	lockName, counterKey   string
	startMarker, endMarker string
	targets                []conn.MonTarget
	monitors               []*monitor
	monAddrs               []string
	ws                     []*demoWorker // until all were waited for
	connMu                 sync.Mutex
	connAddrs              map[string]bool
	progress               atomic.Int64
}

// row prints one line of the settings or the results.
func row(k, format string, a ...any) { fmt.Printf("  %-12s %s\n", k, fmt.Sprintf(format, a...)) }

func runDemo(ctx context.Context, prog string, cn *conn.Conn, cf *conn.Flags, s demoSettings) int {
	id := make([]byte, 4)
	_, _ = rand.Read(id)
	runID := hex.EncodeToString(id)
	r := &demoRun{prog: prog, cn: cn, cf: cf, s: s, lockName: "redisson-demo:" + runID, connAddrs: map[string]bool{}}
	r.counterKey = r.lockName + ":counter"
	r.startMarker, r.endMarker = "redisson-demo:"+runID+":start", "redisson-demo:"+runID+":end"

	version := serverVersion(ctx, cn.RDB)
	if err := cn.RDB.Set(ctx, r.counterKey, 0, 0).Err(); err != nil {
		return cliflag.Errorf(prog, "SET %s: %v", r.counterKey, err)
	}
	defer func() {
		dctx, cancel := context.WithTimeout(context.Background(), cf.Timeout)
		defer cancel()
		cn.RDB.Del(dctx, r.counterKey)
		cn.RDB.Del(dctx, r.lockName)
	}()
	defer func() {
		for _, m := range r.monitors {
			m.Close()
		}
	}()
	if err := r.startMonitors(ctx); err != nil {
		return cliflag.Errorf(prog, "%v", err)
	}
	r.printSettings(version)
	defer r.stopWorkers()
	if code, ok := r.startWorkers(ctx); !ok {
		return code
	}
	start := time.Now()
	if code, ok := r.watch(ctx, start); !ok {
		return code
	}
	all := r.ws
	end, failed := r.waitWorkers()
	if failed {
		return cliflag.ExitError
	}
	if err := markAll(ctx, r.targets, r.monitors, r.endMarker, 1); err != nil {
		return cliflag.Errorf(prog, "%v", err)
	}
	got, err := cn.RDB.Get(ctx, r.counterKey).Int64()
	if err != nil {
		return cliflag.Errorf(prog, "GET %s: %v", r.counterKey, err)
	}
	h := handoffsOf(all)
	fmt.Println()
	fmt.Println("results")
	row("time", "%.2fs", end.Sub(start).Seconds())
	row("throughput", "%.0f acquisitions/s", float64(s.ops)/end.Sub(start).Seconds())
	if len(h.all) > 0 {
		row("hand-off", "p50 %s  p99 %s  max %s  (release → next acquire, %d hand-offs)",
			fmtDur(quantile(h.all, 0.50)), fmtDur(quantile(h.all, 0.99)), fmtDur(h.all[len(h.all)-1]), len(h.all))
	}
	lockRT := r.printRoundTrips()
	code := r.verdict(got, h.overlaps)
	if code == cliflag.ExitOK {
		fmt.Println()
		for _, l := range reading(h, s.ops, s.workers, lockRT) {
			fmt.Println(l)
		}
	}
	return code
}

// startMonitors starts a MONITOR on every master.
func (r *demoRun) startMonitors(ctx context.Context) error {
	targets, err := r.cn.Masters(ctx)
	if err != nil {
		return err
	}
	r.targets = targets
	for _, t := range targets {
		m, err := startMonitor(ctx, t.Addr, t.Opts, r.startMarker, r.endMarker)
		if err != nil {
			return err
		}
		r.monitors = append(r.monitors, m)
		r.monAddrs = append(r.monAddrs, t.Addr)
	}
	return nil
}

// printSettings prints what the demo is about to do.
func (r *demoRun) printSettings(version string) {
	s := r.s
	perProc := s.ops / s.procs
	fmt.Printf("redisson demo: %d processes × %d goroutines contend on one lock\n", s.procs, s.workers)
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
	row("lock", "%s; counter %s (GET then SET inside the lock)", r.lockName, r.counterKey)
	where := r.cn.Display
	if version != "" {
		where += ", redis-server " + version
	}
	if s.private {
		where += ", private (started for this demo, stopped at the end)"
	} else {
		where += ", given by --redis / $REDIS_URL"
	}
	row("Redis", "%s", where)
	row("round trips", "counted with MONITOR on %s", strings.Join(r.monAddrs, ", "))
	fmt.Println()
}

// stopWorkers makes sure no worker outlives the demo.
func (r *demoRun) stopWorkers() {
	for _, w := range r.ws {
		_ = w.stdin.Close()
	}
	for _, w := range r.ws {
		select {
		case <-w.finished:
		case <-time.After(10 * time.Second):
			_ = w.cmd.Process.Kill()
		}
		_ = w.cmd.Wait()
	}
}

// startWorkers starts the worker processes, waits until each is connected
// and ready, marks the start in every MONITOR and lets them go.
func (r *demoRun) startWorkers(ctx context.Context) (int, bool) {
	exe, err := os.Executable()
	if err != nil {
		return cliflag.Errorf(r.prog, "cannot find my own executable: %v", err), false
	}
	for i := range r.s.procs {
		if err := r.startWorker(exe, i); err != nil {
			return cliflag.Errorf(r.prog, "%v", err), false
		}
	}
	readyCtx, readyCancel := context.WithTimeout(ctx, 30*time.Second)
	defer readyCancel()
	for _, w := range r.ws {
		select {
		case <-w.ready:
		case <-w.finished:
			return cliflag.Errorf(r.prog, "worker %d ended before it was ready: %s", w.id, w.failure()), false
		case <-readyCtx.Done():
			return cliflag.Errorf(r.prog, "workers not ready: %v", context.Cause(readyCtx)), false
		}
	}
	// Start counting: once MONITOR shows the start marker, every command
	// sent before it has gone by.
	if err := markAll(ctx, r.targets, r.monitors, r.startMarker, 0); err != nil {
		return cliflag.Errorf(r.prog, "%v", err), false
	}
	for _, w := range r.ws {
		if _, err := io.WriteString(w.stdin, "go\n"); err != nil {
			return cliflag.Errorf(r.prog, "start worker %d: %v", w.id, err), false
		}
	}
	return cliflag.ExitOK, true
}

// startWorker starts worker process i with its share of the operations.
func (r *demoRun) startWorker(exe string, i int) error {
	s, cf := r.s, r.cf
	share := s.ops / s.procs
	if i < s.ops%s.procs {
		share++
	}
	args := []string{WorkerName,
		"--lock", r.lockName, "--counter", r.counterKey,
		"--workers", strconv.Itoa(s.workers), "--ops", strconv.Itoa(share),
		"--lease", s.lease.String(), "--timeout", cf.Timeout.String(),
	}
	if cf.Cluster {
		args = append(args, "--cluster")
	}
	args = append(args, cf.TLS.Args()...)
	cmd := exec.Command(exe, args...)
	// The URL travels in the environment: no password on a command line.
	cmd.Env = append(os.Environ(), "REDIS_URL="+cf.RawValue())
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start worker: %w", err)
	}
	w := &demoWorker{id: i, ops: share, cmd: cmd, stdin: stdin, ready: make(chan struct{}), finished: make(chan struct{})}
	r.ws = append(r.ws, w)
	go w.read(stdout, &r.progress, func(addr string) {
		r.connMu.Lock()
		r.connAddrs[addr] = true
		r.connMu.Unlock()
	})
	return nil
}

// watch shows the progress until every worker's output has ended.
func (r *demoRun) watch(ctx context.Context, start time.Time) (int, bool) {
	allDone := make(chan struct{})
	go func() {
		for _, w := range r.ws {
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
		n := r.progress.Load()
		rate := float64(n) / max(time.Since(start).Seconds(), 1e-9)
		if tty {
			fmt.Printf("\r%s %d/%d  %.0f acq/s\x1b[K", bar(n, int64(r.s.ops), 30), n, r.s.ops, rate)
			if final {
				fmt.Println()
			}
		} else if !final {
			fmt.Printf("progress %d/%d  %.0f acq/s\n", n, r.s.ops, rate)
		}
	}
	for {
		select {
		case <-tick.C:
			show(false)
		case <-allDone:
			show(true)
			return cliflag.ExitOK, true
		case <-ctx.Done():
			if tty {
				fmt.Println()
			}
			return cliflag.ExitError, false // the caller reports the signal
		}
	}
}

// waitWorkers waits for every worker process; end is when the last one
// finished its operations.
func (r *demoRun) waitWorkers() (end time.Time, failed bool) {
	for _, w := range r.ws {
		err := w.cmd.Wait()
		if w.doneAt.After(end) {
			end = w.doneAt
		}
		if w.errMsg != "" || err != nil || w.doneAt.IsZero() {
			failed = true
			fmt.Fprintf(os.Stderr, "%s: worker %d failed: %s\n", r.prog, w.id, w.failure())
		}
	}
	r.ws = nil // all waited for
	return end, failed
}

// handOffs is the hand-off latency across all processes, sorted: of every
// hand-off, of those a local hand-off made (the lock passed to a waiter of
// the releasing process) and of the others; overlaps counts the critical
// sections that began before the previous one ended.
type handOffs struct {
	all, local, other []time.Duration
	overlaps          int
	// handedOver counts the acquisitions a local hand-off gave.
	handedOver int
}

// handoffsOf measures the hand-offs from every worker's critical sections.
func handoffsOf(ws []*demoWorker) handOffs {
	var secs []section
	for _, w := range ws {
		secs = append(secs, w.sections...)
	}
	sort.Slice(secs, func(i, j int) bool { return secs[i].acq < secs[j].acq })
	var h handOffs
	for i, sec := range secs {
		if sec.handedOver {
			h.handedOver++
		}
		if i == 0 {
			continue
		}
		d := time.Duration(sec.acq - secs[i-1].rel)
		if d < 0 {
			h.overlaps++
		}
		h.all = append(h.all, d)
		if sec.handedOver {
			h.local = append(h.local, d)
		} else {
			h.other = append(h.other, d)
		}
	}
	for _, l := range [][]time.Duration{h.all, h.local, h.other} {
		sort.Slice(l, func(i, j int) bool { return l[i] < l[j] })
	}
	return h
}

// roundTrips counts the commands of the workers' own connections.
type roundTrips struct {
	workerCmds                                    map[string]int64
	workerTotal, otherTotal, scripted, registered int64
	matched                                       bool
}

func (r *demoRun) roundTrips() roundTrips {
	rt := roundTrips{workerCmds: map[string]int64{}, matched: true}
	r.connMu.Lock()
	for _, m := range r.monitors {
		counts, sc := m.result()
		rt.scripted += sc
		rt.registered += m.registrations()
		for addr, byCmd := range counts {
			for c, n := range byCmd {
				if r.connAddrs[addr] {
					rt.workerCmds[c] += n
					rt.workerTotal += n
				} else {
					rt.otherTotal += n
				}
			}
		}
	}
	r.connMu.Unlock()
	if rt.workerTotal == 0 && rt.otherTotal > 0 {
		// The workers' local addresses are not what the server sees (NAT,
		// a proxy): count every client but ours instead.
		rt.matched = false
		for _, m := range r.monitors {
			counts, _ := m.result()
			for _, byCmd := range counts {
				for c, n := range byCmd {
					rt.workerCmds[c] += n
				}
			}
		}
		rt.workerTotal, rt.otherTotal = rt.otherTotal, 0
	}
	return rt
}

// printRoundTrips prints the round trips per acquisition and returns the
// lock's.
func (r *demoRun) printRoundTrips() float64 {
	rt := r.roundTrips()
	counterCmds := rt.workerCmds["get"] + rt.workerCmds["set"]
	perAcq := func(n int64) float64 { return float64(n) / float64(r.s.ops) }
	row("round trips", "%.2f per acquisition: %.2f lock + %.2f counter (GET, SET)",
		perAcq(rt.workerTotal), perAcq(rt.workerTotal-counterCmds), perAcq(counterCmds))
	row("", "%s", breakdown(rt.workerCmds, r.s.ops))
	note := fmt.Sprintf("top-level commands of the workers' connections; %d commands run inside scripts not counted", rt.scripted)
	if !rt.matched {
		note = fmt.Sprintf("top-level commands of all clients: the server sees the workers under other addresses (NAT or proxy?); %d commands run inside scripts not counted", rt.scripted)
	}
	if rt.otherTotal > 0 {
		note += fmt.Sprintf("; %d commands of other clients ignored", rt.otherTotal)
	}
	if rt.registered > 0 {
		note += fmt.Sprintf("; %d writes of the clients' registration records (background, at most 4/s per client) not counted", rt.registered)
	}
	row("", "(%s)", note)
	return perAcq(rt.workerTotal - counterCmds)
}

// verdict prints the counter and returns the exit code: 1 when updates
// were lost or critical sections overlapped.
func (r *demoRun) verdict(got int64, overlaps int) int {
	prog, ops := r.prog, r.s.ops
	lost := int64(ops) - got
	code := cliflag.ExitOK
	if overlaps > 0 {
		fmt.Fprintf(os.Stderr, "%s: %d critical sections began before the previous one ended (mutual exclusion violated, or the wall clock was stepped)\n", prog, overlaps)
		code = cliflag.ExitError
	}
	switch {
	case lost == 0:
		row("counter", "%d of %d: 0 lost updates", got, ops)
	case lost > 0:
		row("counter", "%d of %d", got, ops)
		fmt.Fprintf(os.Stderr, "%s: %d LOST UPDATES: the counter is %d after %d increments under the lock\n", prog, lost, got, ops)
		code = cliflag.ExitError
	default:
		row("counter", "%d of %d", got, ops)
		fmt.Fprintf(os.Stderr, "%s: the counter is %d, more than the %d increments: someone else wrote it\n", prog, got, ops)
		code = cliflag.ExitError
	}
	return code
}
