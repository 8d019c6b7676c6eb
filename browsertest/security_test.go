package browsertest

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/goredisson/redisson/keys"
	"github.com/goredisson/redisson/redissontest"
)

// TestReadHoldsColumn: the read-write lock page's "Read holds expire in"
// column shows each read hold's TTL as text ("29.9s, 59.9s"), not
// "[object HTMLSpanElement]".
func TestReadHoldsColumn(t *testing.T) {
	addr, rdb := startRedis(t)
	base := startDashboard(t, addr)
	client := redissontest.NewClient(t, rdb)
	ctx := context.Background()
	h, err := client.ReadWriteLock("catalog").ReadLock().Lock(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.Unlock(context.Background()) })
	// A Java reader holding twice (reentrant): two timeout keys, as
	// Redisson writes them.
	const java = "0b3c1a2e-5d4f-4e6a-9b8c-7d6e5f4a3b2c:41"
	if err := rdb.HSet(ctx, "catalog", java, 2).Err(); err != nil {
		t.Fatal(err)
	}
	for i, ttl := range []time.Duration{time.Minute, 2 * time.Minute} {
		if err := rdb.Set(ctx, fmt.Sprintf("%s:%d", keys.ReadWriteLockTimeoutPrefix("catalog", java), i+1), "1", ttl).Err(); err != nil {
			t.Fatal(err)
		}
	}

	bctx := browser(t)
	if err := chromedp.Do(bctx, chromedp.Navigate(base+"object?name=catalog")); err != nil {
		t.Fatal(err)
	}
	live(t, bctx)
	within(t, bctx, 5*time.Second, "two readers' TTLs", `document.querySelectorAll(".read-ttls").length === 2`)
	cells, err := chromedp.Run(bctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll(".read-ttls")].map(c => c.closest("td").innerText)`))
	if err != nil {
		t.Fatal(err)
	}
	ttl := `[0-9][0-9hms.]*`
	one, two := regexp.MustCompile(`^`+ttl+`$`), regexp.MustCompile(`^`+ttl+`, `+ttl+`$`)
	got := strings.Join(cells, " | ")
	if strings.Contains(got, "object") || len(cells) != 2 || !(one.MatchString(cells[0]) && two.MatchString(cells[1]) || two.MatchString(cells[0]) && one.MatchString(cells[1])) {
		t.Errorf("read holds cells %q, want one TTL and two TTLs as text", cells)
	}
	screenshot(t, bctx, "object-read-write-lock")
}

// attacker serves a page of another origin (another port) that frames
// target and, when write is set, posts a force-unlock to the dashboard.
func attacker(t *testing.T, target, write string) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><title>elsewhere</title>
<iframe id="victim" src="%s" width="1000" height="600"></iframe>
<p id="write">not sent</p>
<script>
const url = %s;
if (url) {
  // A simple request (no preflight): a page of another site can send it.
  fetch(url, {method: "POST", mode: "no-cors", headers: {"Content-Type": "text/plain"}, body: JSON.stringify({name: "deploy"})})
    .then(() => { document.getElementById("write").textContent = "sent"; }, (e) => { document.getElementById("write").textContent = "failed " + e; });
  // With the dashboard's header: the browser must ask first, and the
  // dashboard does not allow it.
  fetch(url, {method: "POST", headers: {"Content-Type": "application/json", "X-Redisson-Dashboard": "1"}, body: JSON.stringify({name: "deploy"})})
    .then(() => { document.title = "header write answered"; }, () => { document.title = "header write blocked"; });
}
</script>`, target, js(write))
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/"
}

// frames returns the page's child frames.
func frames(t *testing.T, ctx context.Context) []*cdp.Frame {
	t.Helper()
	res, err := chromedp.Call(ctx, page.GetFrameTree, cdp.Empty{})
	if err != nil {
		t.Fatal(err)
	}
	var out []*cdp.Frame
	for _, c := range res.FrameTree.ChildFrames {
		out = append(out, c.Frame)
	}
	return out
}

// TestFramingRefused: a page of another origin that frames an object page
// of a dashboard with --allow-writes gets no dashboard in its frame (the
// frame holds the browser's error page), so no click can reach the
// Force-unlock button; nor can the dashboard frame itself. Every response
// says so in its headers.
func TestFramingRefused(t *testing.T) {
	addr, rdb := startRedis(t)
	base := startDashboard(t, addr, "--allow-writes")
	client := redissontest.NewClient(t, rdb)
	ctx := context.Background()
	h, err := client.Lock("deploy").Lock(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.Unlock(context.Background()) })

	for _, path := range []string{"", "object?name=deploy", "static/object.js", "api/ls"} {
		res, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if xfo, csp := res.Header.Get("X-Frame-Options"), res.Header.Get("Content-Security-Policy"); xfo != "DENY" ||
			!strings.Contains(csp, "frame-ancestors 'none'") || !strings.Contains(csp, "script-src 'self'") || strings.Contains(csp, "unsafe-inline") {
			t.Errorf("GET /%s: X-Frame-Options %q, CSP %q", path, xfo, csp)
		}
	}

	bctx := browser(t)
	if err := chromedp.Do(bctx, chromedp.Navigate(attacker(t, base+"object?name=deploy", ""))); err != nil {
		t.Fatal(err)
	}
	var fs []*cdp.Frame
	deadline := time.Now().Add(10 * time.Second)
	for {
		// The refused frame ends on the browser's error page; a loaded one
		// would show the dashboard's address.
		fs = frames(t, bctx)
		if len(fs) == 1 && (fs[0].UnreachableURL != "" || strings.HasPrefix(fs[0].URL, "chrome-error:")) {
			break
		}
		if len(fs) == 1 && strings.HasPrefix(fs[0].URL, base) {
			t.Fatalf("the dashboard loaded in a frame of another origin: %+v", fs[0])
		}
		if time.Now().After(deadline) {
			t.Fatalf("the frame neither refused nor loaded: %d frames %+v", len(fs), fs)
		}
		time.Sleep(25 * time.Millisecond)
	}
	t.Logf("frame of another origin: url %q, unreachable %q", fs[0].URL, fs[0].UnreachableURL)
	screenshot(t, bctx, "framing-refused")
	// Click where the Force-unlock button would be, twice, as the issue's
	// attack did: nothing is there to receive it.
	for range 2 {
		if err := chromedp.Do(bctx, chromedp.MouseClickXY(200, 250)); err != nil {
			t.Fatal(err)
		}
	}

	// The dashboard framing its own page is refused too: the header, not
	// the browser's cross-origin rule, keeps the page out.
	if err := chromedp.Do(bctx, chromedp.Navigate(base)); err != nil {
		t.Fatal(err)
	}
	live(t, bctx)
	if _, err := chromedp.Run(bctx, chromedp.Evaluate[chromedp.Void](`(() => {
		const f = document.createElement("iframe");
		f.id = "self";
		f.src = "/object?name=deploy";
		f.addEventListener("load", () => { f.dataset.loaded = "1"; });
		document.body.append(f);
	})()`)); err != nil {
		t.Fatal(err)
	}
	within(t, bctx, 10*time.Second, "the same-origin frame settled", `document.getElementById("self").dataset.loaded === "1"`)
	loaded, err := chromedp.Run(bctx, chromedp.Evaluate[bool](`(() => {
		const d = document.getElementById("self").contentDocument;
		return d !== null && d.getElementById("name") !== null;
	})()`))
	if err != nil || loaded {
		t.Errorf("the dashboard framed its own object page: loaded %v (%v)", loaded, err)
	}
	if rdb.Exists(ctx, "deploy").Val() != 1 {
		t.Error("the lock was force-unlocked")
	}
}

// TestCrossOriginWriteRefused: a page of another origin cannot write to a
// dashboard with --allow-writes: its simple POST is refused (wrong Origin,
// no header), and its POST with the dashboard's header is stopped by the
// browser before it is sent. The lock stays.
func TestCrossOriginWriteRefused(t *testing.T) {
	addr, rdb := startRedis(t)
	base := startDashboard(t, addr, "--allow-writes")
	client := redissontest.NewClient(t, rdb)
	ctx := context.Background()
	h, err := client.Lock("deploy").Lock(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.Unlock(context.Background()) })

	bctx := browser(t)
	if err := chromedp.Do(bctx, chromedp.Navigate(attacker(t, "about:blank", base+"api/force-unlock"))); err != nil {
		t.Fatal(err)
	}
	within(t, bctx, 10*time.Second, "both writes settled", `document.getElementById("write").textContent !== "not sent" && document.title.startsWith("header write")`)
	title, err := chromedp.Run(bctx, chromedp.Title())
	if err != nil || title != "header write blocked" {
		t.Errorf("the write with the dashboard's header: %q %v", title, err)
	}
	if rdb.Exists(ctx, "deploy").Val() != 1 {
		t.Fatal("a page of another origin force-unlocked the lock")
	}
	// What the dashboard answers such a write, as the browser sent it.
	req, _ := http.NewRequest(http.MethodPost, base+"api/force-unlock", strings.NewReader(`{"name":"deploy"}`))
	req.Header.Set("Origin", strings.TrimSuffix(attacker(t, "about:blank", ""), "/"))
	req.Header.Set("Content-Type", "text/plain")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusForbidden || rdb.Exists(ctx, "deploy").Val() != 1 {
		t.Errorf("a write from another origin: %s", res.Status)
	}
}
