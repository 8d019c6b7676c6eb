package browsertest

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/fairlock"
	"github.com/goredisson/redisson/keys"
	"github.com/goredisson/redisson/redissontest"
	"github.com/goredisson/redisson/rlock"
)

// holderEnv makes the test binary a holder process: it holds orders:dead,
// queues for jobs:dead, says READY and waits to be killed.
const holderEnv = "REDISSON_BROWSERTEST_HOLDER"

// holderWatchdog gives the holder a refresh period of 1 s: it counts as
// gone 4 s (a period and the 3 s grace) after its last refresh.
const holderWatchdog = 3 * time.Second

// holderMain is the holder process's main.
func holderMain(addr string) int {
	rdb := redis.NewClient(&redis.Options{Addr: addr})
	c, err := redisson.New(rdb, redisson.WithWatchdogTimeout(holderWatchdog))
	if err != nil {
		fmt.Println("ERR", err)
		return 1
	}
	ctx := context.Background()
	// A lease far longer than the test: the hold outlives the process.
	if _, err := c.Lock("orders:dead").Lock(ctx, rlock.WithLease(10*time.Minute)); err != nil {
		fmt.Println("ERR", err)
		return 1
	}
	go func() { _, _ = c.FairLock("jobs:dead").Lock(ctx) }()
	fmt.Println("READY")
	select {}
}

// startHolderProcess runs the holder process and returns it once it holds.
func startHolderProcess(t *testing.T, addr string) *exec.Cmd {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self, "-test.run=^$")
	cmd.Env = append(os.Environ(), holderEnv+"="+addr)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	lines := make(chan string, 1)
	go func() {
		defer close(done)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			default:
			}
		}
		_ = cmd.Wait()
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-done
	})
	select {
	case l := <-lines:
		if l != "READY" {
			t.Fatalf("holder process: %s", l)
		}
	case <-done:
		t.Fatal("the holder process ended before READY")
	case <-time.After(60 * time.Second):
		t.Fatal("the holder process did not say READY")
	}
	return cmd
}

// TestDeadHolderMarked: a holder process killed with SIGKILL is marked gone
// on the list and on the object page (its hold and its fair-queue entry)
// within its record's bound, while a live holder is not.
func TestDeadHolderMarked(t *testing.T) {
	addr, rdb := startRedis(t)
	base := startDashboard(t, addr)
	mine := redissontest.NewClient(t, rdb)
	bctx := context.Background()
	fh, err := mine.FairLock("jobs:dead").Lock(bctx, fairlock.WithLease(10*time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Unlock(context.Background())
	holder := startHolderProcess(t, addr)
	pid := fmt.Sprintf("pid %d", holder.Process.Pid)
	for deadline := time.Now().Add(30 * time.Second); rdb.LLen(bctx, keys.FairLockQueue("jobs:dead")).Val() != 1; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the holder's waiter is not queued")
		}
	}

	ctx := browser(t)
	if err := chromedp.Do(ctx, chromedp.Navigate(base)); err != nil {
		t.Fatal(err)
	}
	live(t, ctx)
	within(t, ctx, 10*time.Second, "orders:dead held by the holder process", rowHas("orders:dead", pid))
	if gone, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.querySelector('tr[data-name="orders:dead"] td.holder .gone') !== null`)); err != nil || gone {
		t.Fatalf("a live holder marked gone (%v)", err)
	}

	if err := holder.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	// Gone 4 s after the last refresh (at most when it was killed), shown
	// at the next refresh of the page (1 s); the rest is slack for a
	// loaded machine.
	within(t, ctx, 4*time.Second+time.Second+10*time.Second, "orders:dead marked gone", rowHas("orders:dead", pid, "gone · not seen for"))
	t.Logf("dead holder marked %v after SIGKILL", time.Since(killed).Round(time.Millisecond))
	within(t, ctx, 5*time.Second, "jobs:dead's live holder not marked", `(() => {
		const r = document.querySelector('tr[data-name="jobs:dead"]');
		return r !== null && r.querySelector("td.holder .gone") === null;
	})()`)
	screenshot(t, ctx, "dead-holder-list")

	if err := chromedp.Do(ctx, chromedp.Navigate(base+"object?name=jobs:dead")); err != nil {
		t.Fatal(err)
	}
	live(t, ctx)
	within(t, ctx, 10*time.Second, "the dead waiter's queue entry marked gone", `(() => {
		const li = document.querySelectorAll("#queue li");
		return li.length === 1 && li[0].querySelector(".gone") !== null && li[0].innerText.includes(`+js(pid)+`);
	})()`)
	screenshot(t, ctx, "dead-holder-queue")
}
