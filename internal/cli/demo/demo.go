package demo

import (
	"bufio"
	"context"
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
Then two closing lines: "reading:" gives the share of the acquisitions a
local hand-off made (an unlock gave the lock to a goroutine waiting in the
same process, which sent Redis nothing), their hand-off p50 against the
others', and whether they are why the lock needs under one round trip per
acquisition; "next:" what to run or read next.

Exit codes: 0 all fine ("0 lost updates"); 1 error, lost updates or overlaps;
2 usage; 130/143 interrupted by SIGINT/SIGTERM.`

var demoExamples = fmt.Sprintf(`  redisson demo                                  # %d processes × %d goroutines, %d acquisitions
  make demo ARGS="--procs 4 --workers 4"
  redisson demo --ops 2000 --lease 5s            # fixed 5 s lease, no watchdog
  redisson demo --redis redis://localhost:6379   # an existing server
  redisson demo --cluster --redis redis://127.0.0.1:7000,127.0.0.1:7001,127.0.0.1:7002`,
	defaultDemoProcs, defaultDemoWorkers, defaultDemoOps)

// section is one critical section: when Lock returned and Unlock was called
// (Unix ns), and whether a local hand-off gave the lock.
type section struct {
	acq, rel   int64
	handedOver bool
}

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
			return cliflag.ExitSignalBase + cliflag.SignalNumber(s), true
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
		cf.URLs = conn.URLList{"redis://" + server.Addr()}
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
		if sec, ok := parseSection(line); ok {
			w.sections = append(w.sections, sec)
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

// parseSection is the fast path for the {"a":<ns>,"r":<ns>[,"h":1]} lines.
func parseSection(b []byte) (section, bool) {
	s := string(b)
	rest, found := strings.CutPrefix(s, `{"a":`)
	if !found {
		return section{}, false
	}
	as, rest, found := strings.Cut(rest, `,"r":`)
	if !found {
		return section{}, false
	}
	rest, found = strings.CutSuffix(rest, "}")
	if !found {
		return section{}, false
	}
	rs, handedOver := strings.CutSuffix(rest, `,"h":1`)
	a, err1 := strconv.ParseInt(as, 10, 64)
	r, err2 := strconv.ParseInt(rs, 10, 64)
	return section{acq: a, rel: r, handedOver: handedOver}, err1 == nil && err2 == nil
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
