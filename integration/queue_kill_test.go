package integration

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/codec"
	"github.com/goredisson/redisson/internal/redistest"
)

// queueWorkerEnv carries a queue job to the test binary re-executed as a
// worker: it is read in init, before TestMain, so that the queue workers
// need nothing from the shared worker code.
const queueWorkerEnv = "REDISSON_INTEGRATION_QUEUE_JOB"

// queueJob is what one queue worker process does: "produce" puts N
// elements e-0 … e-(N-1) (reporting "UNCERTAIN i" for a put whose outcome
// an error left unknown, then putting it again), "consume" takes with
// Goroutines loops and reports "GOT <element>" for each.
type queueJob struct {
	Role       string
	Addr       string
	Name       string
	N          int
	Goroutines int
}

func init() {
	if js := os.Getenv(queueWorkerEnv); js != "" {
		os.Exit(queueWorker(js))
	}
}

func queueWorker(js string) int {
	var j queueJob
	if err := json.Unmarshal([]byte(js), &j); err != nil {
		fmt.Fprintln(os.Stderr, "queue worker: bad job:", err)
		return 2
	}
	rdb := redis.NewClient(&redis.Options{Addr: j.Addr})
	defer rdb.Close()
	c, err := redisson.New(rdb, redisson.WithRetry(redisson.RetryOptions{Attempts: 100, Delay: 100 * time.Millisecond}))
	if err != nil {
		fmt.Fprintln(os.Stderr, "queue worker:", err)
		return 2
	}
	defer c.Close()
	q := redisson.NewBlockingQueue[string](c, j.Name, codec.String())
	ctx := context.Background()
	var out sync.Mutex
	say := func(format string, a ...any) {
		out.Lock()
		defer out.Unlock()
		fmt.Printf(format+"\n", a...)
	}
	switch j.Role {
	case "produce":
		for i := range j.N {
			for {
				err := q.Put(ctx, "e-"+strconv.Itoa(i))
				if err == nil {
					break
				}
				say("UNCERTAIN %d %v", i, err)
				time.Sleep(50 * time.Millisecond)
			}
			if i%20 == 0 {
				time.Sleep(5 * time.Millisecond) // spread the run over the faults
			}
		}
		say("DONE")
	case "consume":
		var wg sync.WaitGroup
		for range j.Goroutines {
			wg.Go(func() {
				for {
					v, err := q.Take(ctx)
					if err != nil {
						say("ERR %v", err)
						time.Sleep(50 * time.Millisecond)
						continue
					}
					say("GOT %s", v)
				}
			})
		}
		wg.Wait()
	}
	return 0
}

// queueProc is a running queue worker and the lines it printed.
type queueProc struct {
	cmd   *exec.Cmd
	mu    sync.Mutex
	lines []string
	done  chan struct{}
}

func startQueueWorker(t *testing.T, j queueJob) *queueProc {
	t.Helper()
	js, err := json.Marshal(j)
	require.NoError(t, err)
	self, err := os.Executable()
	require.NoError(t, err)
	p := &queueProc{cmd: exec.Command(self, "-test.run=^$"), done: make(chan struct{})}
	p.cmd.Env = append(os.Environ(), queueWorkerEnv+"="+string(js))
	out, err := p.cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, p.cmd.Start())
	go func() {
		defer close(p.done)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			p.mu.Lock()
			p.lines = append(p.lines, sc.Text())
			p.mu.Unlock()
		}
		_ = p.cmd.Wait()
	}()
	t.Cleanup(p.kill)
	return p
}

// kill ends the process with SIGKILL and waits for it to be gone.
func (p *queueProc) kill() {
	_ = p.cmd.Process.Kill()
	<-p.done
}

func (p *queueProc) output() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.lines...)
}

// TestQueueKillAndRestart: a producer process and consumer processes share
// a blocking queue on a Redis with AOF (appendfsync always) while a
// consumer is killed with SIGKILL and Redis is killed and restarted. No
// element is taken twice except one whose put the producer had to send
// again (an error left its first outcome unknown); every element the
// producer put is taken or still in the queue, except at most one per
// consumer goroutine at each fault, whose pop Redis had persisted but whose
// reply died with the process or the server (the at-most-once of BLPOP).
func TestQueueKillAndRestart(t *testing.T) {
	srv := redistest.StartServer(t, redistest.Options{Args: []string{"--appendonly", "yes", "--appendfsync", "always"}})
	raw := redistest.Client(t, srv)
	ctx := t.Context()
	const n, goroutines = 3000, 2
	job := queueJob{Addr: srv.Addr(), Name: "iq", N: n, Goroutines: goroutines}
	consume := job
	consume.Role = "consume"
	consumers := []*queueProc{startQueueWorker(t, consume), startQueueWorker(t, consume), startQueueWorker(t, consume)}
	redistest.Eventually(t, 30*time.Second, "consumers waiting", func() bool { return blocked(raw) == 3*goroutines })
	produce := job
	produce.Role = "produce"
	producer := startQueueWorker(t, produce)

	progress := func(min int) func() bool {
		return func() bool {
			got := 0
			for _, c := range consumers {
				got += len(c.output())
			}
			return got >= min
		}
	}
	redistest.Eventually(t, 60*time.Second, "first elements taken", progress(n/4))
	consumers[0].kill() // SIGKILL while its goroutines wait or work
	consumers = append(consumers, startQueueWorker(t, consume))
	redistest.Eventually(t, 60*time.Second, "more elements taken", progress(n/2))
	require.NoError(t, srv.Restart(ctx)) // SIGKILL, then the same AOF
	select {
	case <-producer.done:
	case <-time.After(2 * time.Minute):
		t.Fatal("the producer did not finish")
	}
	prod := producer.output()
	require.Contains(t, prod, "DONE")
	uncertain := map[string]bool{}
	for _, l := range prod {
		if f := strings.Fields(l); len(f) > 1 && f[0] == "UNCERTAIN" {
			uncertain["e-"+f[1]] = true
		}
	}
	redistest.Eventually(t, time.Minute, "queue drained", func() bool {
		return raw.LLen(ctx, "iq").Val() == 0 && blocked(raw) == 3*goroutines
	})
	for _, c := range consumers {
		c.kill()
	}
	got := map[string]int{}
	errs := 0
	for _, c := range consumers {
		for _, l := range c.output() {
			if v, ok := strings.CutPrefix(l, "GOT "); ok {
				got[v]++
			} else if strings.HasPrefix(l, "ERR ") {
				errs++
			}
		}
	}
	for _, v := range raw.LRange(ctx, "iq", 0, -1).Val() {
		got[v]++
	}
	missing := 0
	for i := range n {
		v := "e-" + strconv.Itoa(i)
		switch k := got[v]; {
		case k == 0:
			missing++
			t.Logf("missing: %s", v)
		case k > 1 && !uncertain[v]:
			t.Errorf("%s taken %d times, and its put was never sent again", v, k)
		case k > 2:
			t.Errorf("%s taken %d times", v, k)
		}
	}
	t.Logf("%d elements: %d missing, %d puts sent again %v, %d take errors (retried)", n, missing, len(uncertain), uncertain, errs)
	// One SIGKILLed consumer (its goroutines) and one server kill (every
	// goroutine's pop in flight).
	require.LessOrEqual(t, missing, goroutines+len(consumers)*goroutines,
		"more elements lost than pops could have been in flight at the faults")
}

func blocked(raw *redis.Client) int {
	info, err := raw.Info(context.Background(), "clients").Result()
	if err != nil {
		return -1
	}
	n, _ := strconv.Atoi(redistest.ParseInfo(info)["blocked_clients"])
	return n
}
