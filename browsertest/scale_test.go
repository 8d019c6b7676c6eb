package browsertest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson/redissontest"
)

// scaleObjects is how many objects TestOverviewAtScale lists.
const scaleObjects = 20000

// stallProbe records, from the page's first script on, the longest task
// the main thread ran (longtask entries) and how late a 50 ms timer fired.
const stallProbe = `window.__probe = {longest: 0, late: 0};
new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__probe.longest = Math.max(window.__probe.longest, e.duration); })
  .observe({type: "longtask", buffered: true});
(() => { let last = performance.now(); setInterval(() => { const n = performance.now(); window.__probe.late = Math.max(window.__probe.late, n - last - 50); last = n; }, 50); })();`

// cpuTicks is the user+system clock ticks process pid has used.
func cpuTicks(t *testing.T, pid int) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Logf("no CPU figure: %v", err)
		return 0
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	u, _ := strconv.ParseInt(f[11], 10, 64)
	s, _ := strconv.ParseInt(f[12], 10, 64)
	return u + s
}

// fillLocks writes n held-lock hashes (holders of no registered client)
// with a TTL, as many processes holding locks would leave them.
func fillLocks(t *testing.T, rdb *redis.Client, n int) {
	t.Helper()
	ctx := context.Background()
	for start := 0; start < n; start += 1000 {
		pipe := rdb.Pipeline()
		for i := start; i < min(start+1000, n); i++ {
			k := fmt.Sprintf("scale:%05d", i)
			pipe.HSet(ctx, k, fmt.Sprintf("0b0b0b0b-0000-4000-8000-%012d:1", i%7), 1)
			pipe.PExpire(ctx, k, 30*time.Minute)
		}
		if _, err := pipe.Exec(ctx); err != nil {
			t.Fatal(err)
		}
	}
}

// TestOverviewAtScale: the overview over 20 000 objects with locks
// changing: rows appear, a filter keystroke finds one lock, and a change
// of that lock updates its row. It logs the figures of issue 37 (SSE
// bytes/s after the first snapshot, the longest main-thread stall, a
// keystroke's latency, the dashboard's CPU) without asserting on them.
func TestOverviewAtScale(t *testing.T) {
	addr, rdb := startRedis(t)
	fillLocks(t, rdb, scaleObjects)
	client := redissontest.NewClient(t, rdb)
	h, err := client.Lock("orders:42").Lock(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer h.Unlock(context.Background())
	// Churn: some locks change hands all the time.
	churn, stopChurn := context.WithCancel(context.Background())
	defer stopChurn()
	go func() {
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for churn.Err() == nil {
			k := fmt.Sprintf("scale:%05d", rand.IntN(400))
			rdb.HIncrBy(churn, k, fmt.Sprintf("0b0b0b0b-0000-4000-8000-%012d:1", rand.IntN(7)), 1)
			select {
			case <-churn.Done():
			case <-tick.C:
			}
		}
	}()

	base, pid := startDashboardProc(t, addr, "--max-keys", strconv.Itoa(2*scaleObjects))
	ctx := browser(t)
	var streamed atomic.Int64
	streams := map[network.RequestID]bool{}
	err = chromedp.Listen(ctx, func(ev any) {
		switch e := ev.(type) {
		case *network.EventRequestWillBeSent:
			if strings.Contains(e.Request.URL, "/events/") {
				streams[e.RequestID] = true
			}
		case *network.EventDataReceived:
			if streams[e.RequestID] {
				streamed.Add(e.DataLength)
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, network.Enable, network.EnableParams{}); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: stallProbe}); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(base)); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	within(t, ctx, 120*time.Second, "rows listed", `document.querySelectorAll("#rows tr[data-name]").length > 0 && document.getElementById("summary").innerText.includes("of 20001 objects")`)
	t.Logf("first rows %v after navigation; %d bytes streamed so far", time.Since(start).Round(time.Millisecond), streamed.Load())
	measure(t, ctx, pid, rdb, &streamed)

	fctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	lat, err := chromedp.Run(fctx, chromedp.Evaluate[float64](`new Promise((done) => {
		const t0 = performance.now(), f = document.getElementById("filter");
		f.value = "orders:42";
		f.dispatchEvent(new Event("input"));
		(function check() {
			const r = document.querySelectorAll("#rows tr[data-name]");
			if (r.length === 1 && r[0].getAttribute("data-name") === "orders:42") done(performance.now() - t0);
			else requestAnimationFrame(check);
		})();
	})`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("filter: %v", err)
	}
	t.Logf("figure: a filter keystroke shows its row in %.0f ms", lat)
	host, _ := os.Hostname()
	within(t, ctx, 10*time.Second, "orders:42 held by this process", rowHas("orders:42", host, fmt.Sprintf("pid %d", os.Getpid()), "×1"))
	within(t, ctx, 5*time.Second, "the summary counts the match", `document.getElementById("summary").innerText.startsWith("1 of 20001 objects")`)
	// A re-entry, as Redisson counts it in the lock's hash.
	fields, err := rdb.HKeys(context.Background(), "orders:42").Result()
	if err != nil || len(fields) != 1 {
		t.Fatalf("orders:42 fields %v, %v", fields, err)
	}
	if err := rdb.HIncrBy(context.Background(), "orders:42", fields[0], 1).Err(); err != nil {
		t.Fatal(err)
	}
	within(t, ctx, 10*time.Second, "orders:42's row shows the re-entry", rowHas("orders:42", "×2"))
	screenshot(t, ctx, "overview-20000")
}

// measure logs, over ten seconds of the page's time after the first
// snapshot, the bytes/s the page's event stream received, the longest
// main-thread stall, the dashboard's CPU share and redis-server's.
func measure(t *testing.T, ctx context.Context, pid int, rdb *redis.Client, streamed *atomic.Int64) {
	t.Helper()
	const window = 10 * time.Second
	t0, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`window.__probe.longest = 0; window.__probe.late = 0; performance.now()`))
	if err != nil {
		t.Fatal(err)
	}
	b0, c0, r0, w0 := streamed.Load(), cpuTicks(t, pid), serverCPU(t, rdb), time.Now()
	within(t, ctx, 3*window, "the measuring window", fmt.Sprintf(`performance.now() >= %f`, t0+float64(window.Milliseconds())))
	b1, c1, r1, w1 := streamed.Load(), cpuTicks(t, pid), serverCPU(t, rdb), time.Now()
	probe, err := chromedp.Run(ctx, chromedp.Evaluate[map[string]float64](`window.__probe`))
	if err != nil {
		t.Fatal(err)
	}
	secs := w1.Sub(w0).Seconds()
	t.Logf("figure: SSE %.0f bytes/s after the first snapshot (%d bytes in %.1f s)", float64(b1-b0)/secs, b1-b0, secs)
	t.Logf("figure: longest main-thread task %.0f ms; a 50 ms timer fired at most %.0f ms late", probe["longest"], probe["late"])
	// /proc counts in clock ticks of 1/100 s on Linux.
	t.Logf("figure: dashboard CPU %.1f %% of a core", float64(c1-c0)/secs)
	t.Logf("figure: redis-server CPU %.1f %% of a core (the churn's writes and the test's reads included)", 100*(r1-r0)/secs)
}

// serverCPU is redis-server's user+system CPU seconds, as INFO cpu says.
func serverCPU(t *testing.T, rdb *redis.Client) float64 {
	t.Helper()
	info, err := rdb.Info(context.Background(), "cpu").Result()
	if err != nil {
		t.Logf("no redis-server CPU figure: %v", err)
		return 0
	}
	var sum float64
	for _, line := range strings.Split(info, "\r\n") {
		for _, f := range []string{"used_cpu_sys:", "used_cpu_user:"} {
			if v, ok := strings.CutPrefix(line, f); ok {
				x, _ := strconv.ParseFloat(v, 64)
				sum += x
			}
		}
	}
	return sum
}
