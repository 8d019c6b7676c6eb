package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/fairlock"
	"github.com/goredisson/redisson/internal/cli/inspect"
	"github.com/goredisson/redisson/internal/registry"
	"github.com/goredisson/redisson/keys"
	"github.com/goredisson/redisson/rlock"
	"github.com/goredisson/redisson/semaphore"
)

// goneWorkerEnv makes the test binary a holder process: it holds
// gone:lock, queues for gone:fair, takes permits of gone:sem and gone:pes,
// says READY and waits to be killed.
const goneWorkerEnv = "REDISSON_CLI_GONE_WORKER"

// goneWatchdog is the holder's watchdog timeout: a refresh period of 1 s,
// so that it counts as gone 4 s after its last refresh.
const goneWatchdog = 3 * time.Second

// goneWorker is the holder process's main.
func goneWorker(addr string) int {
	rdb := redis.NewClient(&redis.Options{Addr: addr})
	c, err := redisson.New(rdb, redisson.WithWatchdogTimeout(goneWatchdog))
	if err != nil {
		fmt.Println("ERR", err)
		return 1
	}
	ctx := context.Background()
	// A lease far longer than the test: the hold outlives the process.
	if _, err := c.Lock("gone:lock").Lock(ctx, rlock.WithLease(10*time.Minute)); err != nil {
		fmt.Println("ERR", err)
		return 1
	}
	go func() { _, _ = c.FairLock("gone:fair").Lock(ctx) }()
	// Permits of a semaphore and of a permit-expirable semaphore (leased
	// past the test), which only its record ties to it.
	sem := c.Semaphore("gone:sem")
	pes := c.PermitExpirableSemaphore("gone:pes")
	if _, err := sem.TrySetPermits(ctx, 3); err != nil {
		fmt.Println("ERR", err)
		return 1
	}
	if _, err := pes.TrySetPermits(ctx, 2); err != nil {
		fmt.Println("ERR", err)
		return 1
	}
	if err := sem.Acquire(ctx, 2); err != nil {
		fmt.Println("ERR", err)
		return 1
	}
	if _, err := pes.Acquire(ctx, semaphore.WithLease(10*time.Minute)); err != nil {
		fmt.Println("ERR", err)
		return 1
	}
	fmt.Println("READY")
	select {}
}

// holderProc is a running holder process.
type holderProc struct {
	cmd  *exec.Cmd
	done chan struct{}
	once sync.Once
}

func startGoneHolder(t *testing.T, addr string) *holderProc {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	p := &holderProc{cmd: exec.Command(self, "-test.run=^$"), done: make(chan struct{})}
	p.cmd.Env = append(os.Environ(), goneWorkerEnv+"="+addr)
	out, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ready := make(chan string, 1)
	go func() {
		defer close(p.done)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			select {
			case ready <- sc.Text():
			default:
			}
		}
		_ = p.cmd.Wait()
	}()
	t.Cleanup(p.kill)
	select {
	case line := <-ready:
		if line != "READY" {
			t.Fatalf("holder process: %s", line)
		}
	case <-p.done:
		t.Fatal("the holder process ended before READY")
	case <-time.After(60 * time.Second):
		t.Fatal("the holder process did not say READY")
	}
	return p
}

// kill ends the process with SIGKILL, as a crash would, and waits for it.
func (p *holderProc) kill() {
	p.once.Do(func() { _ = p.cmd.Process.Kill() })
	<-p.done
}

func inspectReport(t *testing.T, url, name string) (inspect.Report, string) {
	t.Helper()
	r := cli(t, 30*time.Second, "inspect", "--json", "--redis", url, name)
	var rep inspect.Report
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("inspect %s: %v\n%v", name, err, r)
	}
	return rep, r.stdout
}

// TestGoneHolder: a holder process killed with SIGKILL is shown as gone in
// inspect (its hold and its fair-queue entry, text and JSON) and ls within
// its record's bound (a refresh period plus the grace); before, it is a
// live holder, and the waiters are counted from the records (goroutines)
// or as connections (a subscriber without a record).
func TestGoneHolder(t *testing.T) {
	t.Parallel()
	url, rdb := server(t)
	ctx := context.Background()
	mine, err := redisson.New(rdb)
	if err != nil {
		t.Fatal(err)
	}
	defer mine.Close()
	fh, err := mine.FairLock("gone:fair").Lock(ctx, fairlock.WithLease(10*time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Unlock(context.Background())
	// A waiter without a record, as a Java client waits: one connection.
	subscribe(t, rdb, keys.LockChannel("gone:lock"))

	p := startGoneHolder(t, strings.TrimPrefix(url, "redis://"))
	var rep inspect.Report
	waitFor(t, 30*time.Second, "the holder's hold in its record", func() (bool, string) {
		var out string
		rep, out = inspectReport(t, url, "gone:lock")
		return len(rep.Holders) == 1 && rep.Holders[0].HeldForMs != nil, out
	})
	if c := rep.Holders[0].Client; c == nil || c.Gone || c.PID != p.cmd.Process.Pid {
		t.Fatalf("a live holder: %+v", c)
	}
	if rep.Waiting != 0 || rep.WaiterConnections != 1 {
		t.Errorf("gone:lock waiters: %d goroutines, %d connections; want 0 and 1", rep.Waiting, rep.WaiterConnections)
	}
	waitFor(t, 30*time.Second, "the holder's fair-lock waiter, counted from its record", func() (bool, string) {
		var out string
		rep, out = inspectReport(t, url, "gone:fair")
		return len(rep.Queue) == 1 && rep.Queue[0].Client != nil && rep.Waiting == 1 && rep.WaiterConnections == 0, out
	})
	if rep.Queue[0].Client.Gone {
		t.Fatalf("a live waiter: %+v", rep.Queue[0].Client)
	}
	waitFor(t, 30*time.Second, "the holder's permits in its record", func() (bool, string) {
		sem, out := inspectReport(t, url, "gone:sem")
		pes, out2 := inspectReport(t, url, "gone:pes")
		return len(sem.PermitHolders) == 1 && sem.PermitHolders[0].Permits == 2 && sem.PermitHolders[0].Client != nil &&
			!sem.PermitHolders[0].Client.Gone && len(pes.Permits) == 1 && pes.Permits[0].Client != nil, out + out2
	})
	data, err := rdb.Get(ctx, registry.Key(*rep.Queue[0].ClientID)).Bytes()
	if err != nil {
		t.Fatal(err)
	}
	rec, err := registry.Parse(data)
	if err != nil {
		t.Fatal(err)
	}

	watchOut, stopWatch := runWatch(t, "inspect", "--watch", "--interval", "200ms", "--redis", url, "gone:lock")
	p.kill()
	// The last refresh was at most now; the client counts as gone
	// GoneAfter later. The slack covers the CLI runs of one poll.
	bound := rec.GoneAfter() + 15*time.Second
	waitFor(t, bound, "inspect to show the holder gone", func() (bool, string) {
		var out string
		rep, out = inspectReport(t, url, "gone:lock")
		return len(rep.Holders) == 1 && rep.Holders[0].Client != nil && rep.Holders[0].Client.Gone, out
	})
	if c := rep.Holders[0].Client; c.SeenAgoMs <= rec.GoneAfter().Milliseconds() || c.SeenMs < rec.WrittenMs {
		t.Errorf("gone client: last seen %dms ago at %d; gone after %v, last record read at %d", c.SeenAgoMs, c.SeenMs, rec.GoneAfter(), rec.WrittenMs)
	}
	rep, out := inspectReport(t, url, "gone:fair")
	if len(rep.Queue) != 1 || rep.Queue[0].Client == nil || !rep.Queue[0].Client.Gone {
		t.Errorf("the fair-queue entry of the gone client:\n%s", out)
	}
	waitFor(t, 30*time.Second, "inspect --watch to mark the holder gone", func() (bool, string) {
		out := watchOut.String()
		return strings.Contains(out, "*       GONE: "), out
	})
	if r := stopWatch(); r.code != 0 {
		t.Errorf("inspect --watch after SIGINT: want exit 0:\n%v", r)
	}
	rep, out = inspectReport(t, url, "gone:sem")
	if len(rep.PermitHolders) != 1 || rep.PermitHolders[0].Client == nil || !rep.PermitHolders[0].Client.Gone || rep.Kind != "semaphore" {
		t.Errorf("the semaphore permits of the gone client:\n%s", out)
	}
	rep, out = inspectReport(t, url, "gone:pes")
	if len(rep.Permits) != 1 || rep.Permits[0].Client == nil || !rep.Permits[0].Client.Gone {
		t.Errorf("the permit of the gone client:\n%s", out)
	}
	r := cli(t, 30*time.Second, "inspect", "--redis", url, "gone:lock")
	if !strings.Contains(r.stdout, "GONE: ") || !strings.Contains(r.stdout, "not seen for ") {
		t.Errorf("inspect text of a gone holder:\n%v", r)
	}
	t.Logf("inspect of the gone holder:\n%s", r.stdout)
	r = cli(t, 30*time.Second, "inspect", "--redis", url, "gone:fair")
	if !strings.Contains(r.stdout, "GONE: ") {
		t.Errorf("inspect text of a gone waiter:\n%v", r)
	}
	t.Logf("inspect of the gone waiter:\n%s", r.stdout)
	r = cli(t, 30*time.Second, "ls", "--redis", url, "gone:*")
	t.Logf("ls:\n%s", r.stdout)
	if line := lineWith(r.stdout, "gone:lock "); !strings.Contains(line, " GONE ") {
		t.Errorf("ls row of a gone holder: %q\n%v", line, r)
	}
	if line := lineWith(r.stdout, "gone:sem "); !strings.Contains(line, " GONE ") || !strings.Contains(line, "×2 permits") {
		t.Errorf("ls row of a gone permit holder: %q\n%v", line, r)
	}
	if line := lineWith(r.stdout, "gone:fair "); strings.Contains(line, " GONE ") {
		t.Errorf("ls row of a live holder marked gone: %q\n%v", line, r)
	}
}

// lineWith returns the first line of s that starts with prefix.
func lineWith(s, prefix string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, prefix) {
			return l
		}
	}
	return ""
}
