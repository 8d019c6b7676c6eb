package browsertest

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/keys"
	"github.com/goredisson/redisson/ratelimit"
	"github.com/goredisson/redisson/redissontest"
	"github.com/goredisson/redisson/semaphore"
)

// live waits for the page's event stream to deliver its first state.
func live(t *testing.T, ctx context.Context) {
	t.Helper()
	within(t, ctx, 10*time.Second, "the page is live", `document.querySelector("#live.on") !== null`)
}

// rowHas is a JavaScript test that the list row of name exists and its
// holder cell contains every text.
func rowHas(name string, texts ...string) string {
	expr := fmt.Sprintf(`(() => { const r = document.querySelector('tr[data-name=' + CSS.escape(%s) + ']'); if (!r) return false; const h = r.querySelector("td.holder").innerText;`, js(name))
	for _, s := range texts {
		expr += fmt.Sprintf(` if (!h.includes(%s)) return false;`, js(s))
	}
	return expr + ` return true; })()`
}

// TestLockAppearsAndGoes: a lock taken by this process appears on the list
// with this host and pid within 2 s, and its release shows within 2 s.
func TestLockAppearsAndGoes(t *testing.T) {
	addr, rdb := startRedis(t)
	base := startDashboard(t, addr)
	ctx := browser(t)
	if err := chromedp.Do(ctx, chromedp.Navigate(base)); err != nil {
		t.Fatal(err)
	}
	live(t, ctx)
	within(t, ctx, 5*time.Second, "the footer names the release version",
		`document.getElementById("version").innerText.startsWith(`+js("redisson v"+redisson.Version+" (")+`)`)
	client := redissontest.NewClient(t, rdb)
	host, _ := os.Hostname()
	pid := fmt.Sprintf("pid %d", os.Getpid())

	start := time.Now()
	h, err := client.Lock("orders:42").Lock(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	within(t, ctx, 2*time.Second-time.Since(start), "orders:42 held by this host and pid", rowHas("orders:42", host, pid))
	t.Logf("lock shown %v after Lock was called", time.Since(start).Round(time.Millisecond))
	state, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('tr[data-name="orders:42"] td:nth-child(3)').innerText`))
	if err != nil || state != "held" {
		t.Errorf("state %q, %v", state, err)
	}

	start = time.Now()
	if err := h.Unlock(context.Background()); err != nil {
		t.Fatal(err)
	}
	// The row goes, or stays for the unlock latch Redisson's unlock leaves
	// for a while (kind none), without a holder.
	within(t, ctx, 2*time.Second-time.Since(start), "orders:42 released", `(() => {
		const r = document.querySelector('tr[data-name="orders:42"]');
		return r === null || (r.querySelector("td.holder").innerText.trim() === "–" && !r.innerText.includes("held"));
	})()`)
	t.Logf("release shown %v after Unlock returned", time.Since(start).Round(time.Millisecond))
}

// TestFairQueueOrder: the object page lists a fair lock's waiters in the
// order of the Redis queue, each with its client and timeout.
func TestFairQueueOrder(t *testing.T) {
	addr, rdb := startRedis(t)
	base := startDashboard(t, addr)
	client := redissontest.NewClient(t, rdb)
	bctx := context.Background()
	h, err := client.FairLock("jobs").Lock(bctx)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Unlock(context.Background())
	wctx, cancel := context.WithCancel(bctx)
	defer cancel()
	for i := range 3 {
		go func() { _, _ = client.FairLock("jobs").Lock(wctx) }()
		deadline := time.Now().Add(30 * time.Second)
		for rdb.LLen(bctx, keys.FairLockQueue("jobs")).Val() != int64(i+1) {
			if time.Now().After(deadline) {
				t.Fatalf("waiter %d not queued", i+1)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	order := rdb.LRange(bctx, keys.FairLockQueue("jobs"), 0, -1).Val()

	ctx := browser(t)
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"object?name=jobs")); err != nil {
		t.Fatal(err)
	}
	live(t, ctx)
	within(t, ctx, 5*time.Second, "three waiters", `document.querySelectorAll("#queue li").length === 3`)
	got, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#queue li")].map(li => li.getAttribute("data-field"))`))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, " ") != strings.Join(order, " ") {
		t.Errorf("page queue %v, Redis queue %v", got, order)
	}
	texts, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#queue li")].map(li => li.innerText)`))
	if err != nil {
		t.Fatal(err)
	}
	host, _ := os.Hostname()
	for _, s := range texts {
		if !strings.Contains(s, "stale in") || !strings.Contains(s, "re-queued") || !strings.Contains(s, host) {
			t.Errorf("waiter line %q lacks its timeout or host", s)
		}
	}
	screenshot(t, ctx, "object-fair-lock")
}

// TestWriteButtons: without --allow-writes the page has no write button
// and the server no write endpoint; with it, force-unlock, set permits and
// delete work after a confirmation.
func TestWriteButtons(t *testing.T) {
	addr, rdb := startRedis(t)
	client := redissontest.NewClient(t, rdb)
	bctx := context.Background()
	h, err := client.Lock("deploy").Lock(bctx)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Unlock(context.Background())
	if _, err := client.Semaphore("encoders").TrySetPermits(bctx, 2); err != nil {
		t.Fatal(err)
	}

	ro := startDashboard(t, addr)
	ctx := browser(t)
	for _, name := range []string{"deploy", "encoders"} {
		if err := chromedp.Do(ctx, chromedp.Navigate(ro+"object?name="+name)); err != nil {
			t.Fatal(err)
		}
		live(t, ctx)
		within(t, ctx, 5*time.Second, "the page drawn", `document.querySelector("#body .stat") !== null && document.querySelector("#mode").innerText === "read-only"`)
		n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("#force-unlock, #delete, #permits-set, #permits-add, button.danger").length`))
		if err != nil || n != 0 {
			t.Errorf("%s: %d write buttons on a read-only dashboard (%v)", name, n, err)
		}
	}
	res, err := http.Post(ro+"api/force-unlock", "application/json", strings.NewReader(`{"name":"deploy"}`))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusNotFound && res.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("read-only POST /api/force-unlock: %s", res.Status)
	}

	rw := startDashboard(t, addr, "--allow-writes")
	confirm := func(button string) {
		t.Helper()
		if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(button))); err != nil {
			t.Fatal(err)
		}
		within(t, ctx, 2*time.Second, "the confirmation", `document.querySelector("dialog#confirm[open]") !== null`)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(rw+"object?name=deploy")); err != nil {
		t.Fatal(err)
	}
	live(t, ctx)
	within(t, ctx, 5*time.Second, "the force-unlock button", `document.querySelector("#force-unlock") !== null`)
	confirm("#force-unlock")
	screenshot(t, ctx, "object-confirm-force-unlock")
	// Cancel leaves the lock alone.
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#confirm-cancel"))); err != nil {
		t.Fatal(err)
	}
	within(t, ctx, 2*time.Second, "the dialog closed", `document.querySelector("dialog#confirm") === null`)
	if rdb.Exists(bctx, "deploy").Val() != 1 {
		t.Fatal("Cancel force-unlocked the lock")
	}
	confirm("#force-unlock")
	start := time.Now()
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#confirm-ok"))); err != nil {
		t.Fatal(err)
	}
	within(t, ctx, 2*time.Second, "the page shows the lock gone", `document.querySelector("#kind-line").innerText.includes("none") && !document.body.innerText.includes(`+js(fmt.Sprintf("%s:%d", client.ID(), h.Owner()))+`)`)
	t.Logf("force-unlock shown %v after the click", time.Since(start).Round(time.Millisecond))
	if rdb.Exists(bctx, "deploy").Val() != 0 {
		t.Error("the lock is still there")
	}

	if err := chromedp.Do(ctx, chromedp.Navigate(rw+"object?name=encoders")); err != nil {
		t.Fatal(err)
	}
	live(t, ctx)
	within(t, ctx, 5*time.Second, "the permits input", `document.querySelector("#permits-n") !== null`)
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[chromedp.Void](`(() => { const i = document.querySelector("#permits-n"); i.value = "7"; i.dispatchEvent(new Event("input")); })()`)); err != nil {
		t.Fatal(err)
	}
	confirm("#permits-set")
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#confirm-ok"))); err != nil {
		t.Fatal(err)
	}
	within(t, ctx, 2*time.Second, "7 permits shown", `[...document.querySelectorAll(".stat")].some(s => s.innerText.replace(/\s+/g, " ").trim().endsWith(" 7"))`)
	if v := rdb.Get(bctx, "encoders").Val(); v != "7" {
		t.Errorf("permits %q, want 7", v)
	}
	confirm("#delete")
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#confirm-ok"))); err != nil {
		t.Fatal(err)
	}
	within(t, ctx, 2*time.Second, "the object gone", `document.querySelector("#kind-line").innerText.includes("none")`)
	if rdb.Exists(bctx, "encoders").Val() != 0 {
		t.Error("delete left the semaphore")
	}
}

// TestTokenRefused: with --token, a request without it is refused; a
// first visit with ?token= opens the page and keeps it in a cookie.
func TestTokenRefused(t *testing.T) {
	addr, _ := startRedis(t)
	base := startDashboard(t, addr, "--token", "tok-3f9a-0b1c-2d3e")
	for _, path := range []string{"", "events/ls", "metrics", "api/ls"} {
		res, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusUnauthorized {
			t.Errorf("GET /%s without the token: %s %s", path, res.Status, body)
		}
	}
	ctx := browser(t)
	navigate(t, ctx, base)
	text, err := evaluate[string](ctx, `document.body.innerText`)
	if err != nil || !strings.Contains(text, "a token is required") {
		t.Errorf("page without the token: %q %v", text, err)
	}
	navigate(t, ctx, base+"?token="+url.QueryEscape("tok-3f9a-0b1c-2d3e"))
	live(t, ctx)
	loc, err := evaluate[string](ctx, `document.location.toString()`)
	if err != nil || strings.Contains(loc, "token") {
		t.Errorf("the token stays in the address: %q %v", loc, err)
	}
}

// TestScreenshots fills a Redis with one object of each kind and saves
// the list and two object pages (docs/img/ holds copies).
func TestScreenshots(t *testing.T) {
	addr, rdb := startRedis(t)
	base := startDashboard(t, addr)
	ctx := context.Background()
	client := redissontest.NewClient(t, rdb)
	java := redissontest.NewClient(t, rdb, func(o *redisson.Options) { o.Registration.Disabled = true })
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"orders:1042", "invoice:7", "nightly-report"} {
		h, err := client.Lock(name).Lock(ctx)
		must(err)
		t.Cleanup(func() { _ = h.Unlock(context.Background()) })
	}
	jh, err := java.Lock("billing:export").Lock(ctx)
	must(err)
	t.Cleanup(func() { _ = jh.Unlock(context.Background()) })
	fh, err := client.FairLock("jobs:render").Lock(ctx)
	must(err)
	t.Cleanup(func() { _ = fh.Unlock(context.Background()) })
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for i := range 2 {
		go func() { _, _ = client.FairLock("jobs:render").Lock(wctx) }()
		for rdb.LLen(ctx, keys.FairLockQueue("jobs:render")).Val() != int64(i+1) {
			time.Sleep(5 * time.Millisecond)
		}
	}
	rl, err := client.ReadWriteLock("catalog").ReadLock().Lock(ctx)
	must(err)
	t.Cleanup(func() { _ = rl.Unlock(context.Background()) })
	sem := client.Semaphore("encoders")
	_, err = sem.TrySetPermits(ctx, 1)
	must(err)
	p, err := sem.AcquirePermits(ctx, 1)
	must(err)
	t.Cleanup(func() { _ = p.Release(context.Background()) })
	go func() { _, _ = sem.AcquirePermits(wctx, 1) }() // a waiter
	pes := client.PermitExpirableSemaphore("licenses")
	_, err = pes.TrySetPermits(ctx, 5)
	must(err)
	for _, d := range []time.Duration{10 * time.Minute, time.Hour} {
		_, err = pes.Acquire(ctx, semaphore.WithLease(d))
		must(err)
	}
	l := client.CountDownLatch("deploy-ready")
	_, err = l.TrySetCount(ctx, 3)
	must(err)
	go func() { _, _ = l.Await(wctx) }()
	lim := client.RateLimiter("api")
	must(lim.SetRate(ctx, ratelimit.Overall, 20, 10*time.Second))
	for i := range 8 {
		_, err = lim.TryAcquire(ctx, int64(1+i%3))
		must(err)
		time.Sleep(150 * time.Millisecond) // spread the grants over the chart
	}

	bctx := browser(t)
	navigate(t, bctx, base)
	live(t, bctx)
	within(t, bctx, 5*time.Second, "every object listed", `document.querySelectorAll("#rows tr[data-name]").length === 10`)
	within(t, bctx, 5*time.Second, "the semaphore's and latch's waiters", `document.querySelector('tr[data-name="deploy-ready"] td.waiters').innerText === "1" && document.querySelector('tr[data-name="encoders"] td.waiters').innerText === "1"`)
	within(t, bctx, 2*time.Second, "an unknown client", rowHas("billing:export", "unknown client (Java, or registration off)"))
	screenshot(t, bctx, "dashboard-list")

	navigate(t, bctx, base+"object?name=api")
	live(t, bctx)
	within(t, bctx, 5*time.Second, "the chart", `document.querySelector("svg.chart") !== null`)
	screenshot(t, bctx, "object-rate-limiter")
	within(t, bctx, 5*time.Second, "the chart's bars", `document.querySelectorAll("svg.chart rect.bar").length === 8`)

	navigate(t, bctx, base+"object?name=licenses")
	live(t, bctx)
	within(t, bctx, 5*time.Second, "two acquired permits", `document.body.textContent.includes("Acquired permits") && document.querySelectorAll("#body table tbody tr").length >= 2`)
	screenshot(t, bctx, "object-permits")
}
