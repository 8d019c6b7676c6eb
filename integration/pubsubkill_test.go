package integration

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/redissontest"
)

// indexed is an event of worker i.
type indexed struct {
	i  int
	ev event
}

// merge forwards the events of every worker to one channel; an "error"
// event or an exit is forwarded as an event "error"/"exit".
func merge(ws []*worker) <-chan indexed {
	out := make(chan indexed, 1024)
	for i, w := range ws {
		go func() {
			for {
				select {
				case ev := <-w.events:
					out <- indexed{i, ev}
				case <-w.exited:
					for {
						select {
						case ev := <-w.events:
							out <- indexed{i, ev}
						default:
							out <- indexed{i, event{what: "exit"}}
							return
						}
					}
				}
			}
		}()
	}
	return out
}

// recorder keeps every MONITOR line of a server while it runs.
type recorder struct {
	m     *redistest.Monitor
	mu    sync.Mutex
	lines []redistest.MonitorLine
	done  chan struct{}
}

func startRecorder(t *testing.T, srv *redistest.Server) *recorder {
	t.Helper()
	m, err := redistest.StartMonitor(srv.Addr())
	require.NoError(t, err)
	r := &recorder{m: m, done: make(chan struct{})}
	go func() {
		defer close(r.done)
		for line := range m.Lines() {
			if l, ok := redistest.ParseMonitorLine(line); ok && l.TopLevel() {
				r.mu.Lock()
				r.lines = append(r.lines, l)
				r.mu.Unlock()
			}
		}
	}()
	t.Cleanup(func() { _ = m.Close() })
	return r
}

// until returns the lines seen until the ECHO marker (sent on raw), which
// it waits for.
func (r *recorder) until(t *testing.T, raw *redis.Client, marker string) []redistest.MonitorLine {
	t.Helper()
	require.NoError(t, raw.Echo(context.Background(), marker).Err())
	var out []redistest.MonitorLine
	redistest.Eventually(t, 10*time.Second, "monitor saw "+marker, func() bool {
		r.mu.Lock()
		defer r.mu.Unlock()
		for i, l := range r.lines {
			if l.Command == "echo" && len(l.Args) == 1 && l.Args[0] == marker {
				out = append([]redistest.MonitorLine(nil), r.lines[:i]...)
				return true
			}
		}
		return false
	})
	return out
}

// scriptsMentioning counts the script calls that carry s in an argument:
// the EVALSHAs, since an EVAL only follows an EVALSHA that found the script
// not loaded yet (the same call).
func scriptsMentioning(lines []redistest.MonitorLine, s string) int {
	n := 0
	for _, l := range lines {
		if l.Command != "evalsha" {
			continue
		}
		for _, a := range l.Args {
			if strings.Contains(a, s) {
				n++
				break
			}
		}
	}
	return n
}

// TestPubSubKilledDuringWaits: waiters in separate processes wait behind
// a holder; every pub/sub connection is killed (CLIENT KILL TYPE pubsub);
// after the holder's release every waiter acquires, each with at most one
// try more than it would have made without the kill.
func TestPubSubKilledDuringWaits(t *testing.T) {
	n := 3
	if full() {
		n = 4
	}
	for _, k := range kinds {
		if k.polls {
			continue // no subscription to kill
		}
		t.Run(k.name, func(t *testing.T) {
			base, _, _ := pubsubKillCase(t, k, n, false)
			tries, last, violations := pubsubKillCase(t, k, n, true)
			figure := fmt.Sprintf("%d waiters in %d processes all acquired after the release, the last %d ms after it", n, n, last.Milliseconds())
			if tries != nil {
				figure += fmt.Sprintf("; tries per waiter in acquisition order %v (same run without the kill: %v), at most %d over the no-fault bound", tries, base, violations.worst)
			}
			record("CLIENT KILL TYPE pubsub", k.name, violations.n, "%s", figure)
			require.Zero(t, violations.n, figure)
		})
	}
	t.Run("CountDownLatch", func(t *testing.T) { testLatch(t, true) })
}

// overBound counts the waiters whose tries exceed the no-fault bound by
// more than one, and the largest excess.
type overBound struct{ n, worst int }

// pubsubKillCase runs n waiters behind a holder of k, with or without the
// kill, and returns each waiter's tries in acquisition order (nil for kinds
// without owner fields), how long after the release the last acquired, and
// the waiters over the bound.
func pubsubKillCase(t *testing.T, k kind, n int, kill bool) ([]int, time.Duration, overBound) {
	e := newEnv(t)
	ctx := context.Background()
	c := redissontest.ClientAt(t, e.srv.Addr())
	name := "pskill"
	hk := k
	if k.role == "r" {
		// Readers wait behind a writer.
		hk, _ = kindByName("WriteLock")
	}
	require.NoError(t, hk.setup(ctx, c, name, 1))
	h, err := hk.acquire(ctx, c, name, 0, redisson.NewOwnerID())
	require.NoError(t, err)
	rec := startRecorder(t, e.srv)

	ws := make([]*worker, n)
	fields := make([]string, n)
	for i := range ws {
		ws[i] = startWorker(t, job{Mode: "hold", Addr: e.srv.Addr(), Kinds: []string{k.name}, Name: name, Permits: 1})
		fields[i] = ws[i].expect("waiting", 30*time.Second).detail
	}
	want := map[string]int64{}
	for _, f := range fields {
		if k.channel != nil {
			want[k.channel(name, f)]++
		}
	}
	subscribed := func() bool {
		if k.channel == nil {
			// Where its waiters wait is the kind's business: at least
			// one subscription each.
			return subscriptions(t, e.raw) >= int64(n)
		}
		for ch, n := range want {
			if redistest.NumSub(t, e.raw, ch) != n {
				return false
			}
		}
		return true
	}
	redistest.Eventually(t, 30*time.Second, "every waiter subscribed", subscribed)
	if kill {
		require.NoError(t, e.raw.ClientKillByFilter(ctx, "TYPE", "pubsub").Err())
		redistest.Eventually(t, 30*time.Second, "every waiter subscribed again", subscribed)
	}

	events := merge(ws)
	released := time.Now()
	require.NoError(t, h.release(ctx))
	var order []int
	var last time.Time
	done := 0
	gone := make([]bool, n)
	timeout := time.After(time.Minute)
	for done < n {
		select {
		case ie := <-events:
			switch ie.ev.what {
			case "acquired":
				order = append(order, ie.i)
				last = ie.ev.at
				ws[ie.i].closeStdin()
			case "released":
				done++
				gone[ie.i] = true
			case "exit":
				if !gone[ie.i] {
					t.Fatalf("worker %d exited before releasing; stderr: %s", ie.i, ws[ie.i].errText())
				}
			default:
				t.Fatalf("worker %d: %s %s; stderr: %s", ie.i, ie.ev.what, ie.ev.detail, ws[ie.i].errText())
			}
		case <-timeout:
			t.Fatalf("after a minute %d of %d waiters acquired", len(order), n)
		}
	}
	lines := rec.until(t, e.raw, "end")
	if fields[0] == "-" || k.compound {
		return nil, last.Sub(released), overBound{}
	}
	// No-fault bound of a waiter's tries: one before and one after it
	// subscribed, then one per release up to its own turn (every release
	// wakes one waiter per client, and each waiter has a client of its
	// own). The kill may add one.
	var tries []int
	var ob overBound
	for rank, i := range order {
		n := scriptsMentioning(lines, fields[i]) - 1 // minus its unlock
		tries = append(tries, n)
		over := n - (2 + rank + 1)
		ob.worst = max(ob.worst, over)
		if over > 1 {
			ob.n++
		}
	}
	return tries, last.Sub(released), ob
}
