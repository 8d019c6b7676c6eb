package integration

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/latch"
)

// workerEnv carries a job to the test binary re-executed as a worker
// process (see TestMain): the hidden worker mode, as bench/ and the CLI's
// demo have.
const workerEnv = "REDISSON_INTEGRATION_WORKER_JOB"

// job is what one worker process does.
type job struct {
	// Mode: "contend" (Clients x Goroutines loops of Ops acquisitions,
	// each a critical section checked on the observer), "hold" (acquire
	// once, report, keep it until stdin closes or the hold is lost) or
	// "await" (latch waiters).
	Mode       string
	Addr       string // Redis the objects live on
	Observer   string // Redis of the gauges and counters
	Kinds      []string
	Name       string
	Permits    int
	Clients    int
	Goroutines int
	Ops        int
	Lease      time.Duration
	// Watchdog is the clients' WatchdogTimeout (0: default).
	Watchdog time.Duration
	// Label is RPUSHed to the observer's list "order:<Name>" when a "hold"
	// worker acquires, so that a test can check the order of holders.
	Label string
}

// event is one line a worker reports: "EV <what> <unix nanos> <detail>".
type event struct {
	what   string
	at     time.Time
	detail string
}

// report writes an event line.
func report(what, detail string) {
	fmt.Printf("EV %s %d %s\n", what, time.Now().UnixNano(), detail)
}

// workerMain runs the job in $REDISSON_INTEGRATION_WORKER_JOB and exits.
func workerMain() {
	var j job
	if err := json.Unmarshal([]byte(os.Getenv(workerEnv)), &j); err != nil {
		fmt.Fprintln(os.Stderr, "integration worker: bad job:", err)
		os.Exit(2)
	}
	if err := runJob(j); err != nil {
		report("error", strconv.Quote(err.Error()))
		os.Exit(1)
	}
	report("exit", "")
	os.Exit(0)
}

// workerClients opens n Clients, each over its own go-redis client.
func workerClients(j job, n int) ([]*redisson.Client, func(), error) {
	var cs []*redisson.Client
	var rdbs []*redis.Client
	closeAll := func() {
		for _, c := range cs {
			_ = c.Close()
		}
		for _, r := range rdbs {
			_ = r.Close()
		}
	}
	for range max(n, 1) {
		rdb := redis.NewClient(&redis.Options{Addr: j.Addr})
		rdbs = append(rdbs, rdb)
		var opts []redisson.Option
		if j.Watchdog > 0 {
			opts = append(opts, redisson.WithWatchdogTimeout(j.Watchdog))
		}
		c, err := redisson.New(rdb, opts...)
		if err != nil {
			closeAll()
			return nil, nil, err
		}
		cs = append(cs, c)
	}
	return cs, closeAll, nil
}

func runJob(j job) error {
	cs, closeAll, err := workerClients(j, j.Clients)
	if err != nil {
		return err
	}
	defer closeAll()
	switch j.Mode {
	case "contend":
		return contend(j, cs)
	case "hold":
		return holdJob(j, cs[0])
	case "await":
		return awaitJob(j, cs)
	case "ratelimit":
		return rateJob(j, cs)
	}
	return fmt.Errorf("unknown mode %q", j.Mode)
}

// holdJob acquires once and reports "acquired <before nanos>", then keeps
// the hold until stdin closes (then releases it and reports "released") or
// the hold is lost ("lost").
func holdJob(j job, c *redisson.Client) error {
	k, ok := kindByName(j.Kinds[0])
	if !ok {
		return fmt.Errorf("unknown kind %q", j.Kinds[0])
	}
	ctx := context.Background()
	if err := k.setup(ctx, c, j.Name, j.Permits); err != nil {
		return err
	}
	owner := redisson.NewOwnerID()
	f := "-"
	if k.role != "p" {
		f = field(c, owner)
	}
	report("waiting", f)
	before := time.Now()
	h, err := k.acquire(ctx, c, j.Name, j.Lease, owner)
	if err != nil {
		return err
	}
	if j.Label != "" {
		obs := redis.NewClient(&redis.Options{Addr: j.Observer})
		err := obs.RPush(ctx, "order:"+j.Name, j.Label).Err()
		_ = obs.Close()
		if err != nil {
			return err
		}
	}
	report("acquired", strconv.FormatInt(before.UnixNano(), 10))
	eof := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		close(eof)
	}()
	select {
	case <-eof:
		if err := h.release(ctx); err != nil {
			return err
		}
		report("released", "")
	case <-h.done():
		report("lost", "")
	}
	return nil
}

// awaitJob: Clients x Goroutines waiters on the latch Name; each reports
// "opened" when its Await returns true.
func awaitJob(j job, cs []*redisson.Client) error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var wg sync.WaitGroup
	errs := make(chan error, len(cs)*j.Goroutines)
	for _, c := range cs {
		for range j.Goroutines {
			wg.Go(func() {
				ok, err := c.CountDownLatch(j.Name).Await(ctx, latch.WithTimeout(time.Minute))
				switch {
				case err != nil:
					errs <- err
				case !ok:
					errs <- errors.New("await timed out")
				default:
					report("opened", "")
				}
			})
		}
	}
	report("waiting", "")
	wg.Wait()
	close(errs)
	return <-errs
}

// worker is a running worker process seen from the test.
type worker struct {
	t      testing.TB
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	events chan event
	exited chan struct{}
	stderr strings.Builder
	mu     sync.Mutex
}

// startWorker re-executes the test binary as a worker running j; it is
// killed when the test ends.
func startWorker(t testing.TB, j job) *worker {
	t.Helper()
	js, err := json.Marshal(j)
	if err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	w := &worker{t: t, events: make(chan event, 4096), exited: make(chan struct{})}
	w.cmd = exec.Command(self, "-test.run=^$")
	w.cmd.Env = append(os.Environ(), workerEnv+"="+string(js))
	w.cmd.Stderr = writerFunc(func(p []byte) (int, error) {
		w.mu.Lock()
		defer w.mu.Unlock()
		return w.stderr.Write(p)
	})
	if w.stdin, err = w.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	out, err := w.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := w.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(w.exited)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			f := strings.SplitN(sc.Text(), " ", 4)
			if len(f) < 3 || f[0] != "EV" {
				continue
			}
			ns, _ := strconv.ParseInt(f[2], 10, 64)
			ev := event{what: f[1], at: time.Unix(0, ns)}
			if len(f) == 4 {
				ev.detail = f[3]
			}
			w.events <- ev
		}
		_ = w.cmd.Wait()
	}()
	t.Cleanup(w.kill)
	return w
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// next returns the worker's next event, failing the test on an "error"
// event, an exit or after within.
func (w *worker) next(within time.Duration) event {
	w.t.Helper()
	select {
	case ev := <-w.events:
		if ev.what == "error" {
			w.t.Fatalf("worker failed: %s; stderr: %s", ev.detail, w.errText())
		}
		return ev
	case <-w.exited:
		select {
		case ev := <-w.events:
			if ev.what == "error" {
				w.t.Fatalf("worker failed: %s; stderr: %s", ev.detail, w.errText())
			}
			return ev
		default:
		}
		w.t.Fatalf("worker exited without reporting; stderr: %s", w.errText())
	case <-time.After(within):
		w.t.Fatalf("no event from the worker within %v; stderr: %s", within, w.errText())
	}
	return event{}
}

// expect returns the next event, which must be what.
func (w *worker) expect(what string, within time.Duration) event {
	w.t.Helper()
	ev := w.next(within)
	if ev.what != what {
		w.t.Fatalf("worker reported %q %s, want %q; stderr: %s", ev.what, ev.detail, what, w.errText())
	}
	return ev
}

func (w *worker) errText() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.stderr.String()
}

// kill ends the process with SIGKILL (no deferred call runs, no lock is
// released) and waits for it to be gone.
func (w *worker) kill() {
	if w.cmd.Process != nil {
		_ = w.cmd.Process.Kill()
	}
	<-w.exited
}

// closeStdin tells a "hold" worker to release and exit.
func (w *worker) closeStdin() { _ = w.stdin.Close() }
