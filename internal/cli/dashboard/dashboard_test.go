package dashboard

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/cli/classify"
	"github.com/goredisson/redisson/internal/cli/ls"
	"github.com/goredisson/redisson/keys"
)

// dashServer serves a dashboard over rdb for the test.
func dashServer(t *testing.T, rdb redis.UniversalClient, o dashOptions) (*httptest.Server, *dashboard) {
	t.Helper()
	if o.ls.Pattern == "" {
		o.ls = ls.Options{Pattern: "*", MaxKeys: 10000, ScanCount: 1000}
	}
	if o.interval == 0 {
		o.interval = 100 * time.Millisecond
	}
	o.timeout = 3 * time.Second
	d := &dashboard{o: o, rdb: rdb, display: "test", loopback: true}
	if o.allowWrites {
		c, err := redisson.New(rdb, func(o *redisson.Options) { o.Registration.Disabled = true })
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		d.client = c
	}
	srv := httptest.NewServer(d.handler())
	d.startRecording()
	t.Cleanup(func() {
		d.closing()
		srv.Close()
	})
	return srv, d
}

// events reads the server-sent events of path and hands each event's
// name and data to the returned channel until the test ends.
func events(t *testing.T, srv *httptest.Server, path string) <-chan [2]string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+path, nil)
	res, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("GET %s: %s %s", path, res.Status, res.Header.Get("Content-Type"))
	}
	out := make(chan [2]string, 100)
	go func() {
		defer res.Body.Close()
		defer close(out)
		sc := bufio.NewScanner(res.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<24)
		var ev, data string
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "event: "):
				ev = line[len("event: "):]
			case strings.HasPrefix(line, "data: "):
				data = line[len("data: "):]
			case line == "" && ev != "":
				select {
				case out <- [2]string{ev, data}:
				case <-ctx.Done():
					return
				}
				ev, data = "", ""
			}
		}
	}()
	return out
}

// nextLs waits for an ls event whose view satisfies cond.
func nextLs(t *testing.T, ch <-chan [2]string, what string, cond func(LsView) bool) LsView {
	t.Helper()
	deadline := time.After(30 * time.Second)
	var last string
	for {
		select {
		case e, ok := <-ch:
			if !ok {
				t.Fatalf("stream ended waiting for %s; last %s", what, last)
			}
			last = e[1]
			if e[0] != "ls" {
				t.Fatalf("event %q: %s", e[0], e[1])
			}
			var v LsView
			if err := json.Unmarshal([]byte(e[1]), &v); err != nil {
				t.Fatalf("bad ls event: %v: %s", err, e[1])
			}
			if cond(v) {
				return v
			}
		case <-deadline:
			t.Fatalf("no ls event with %s; last %s", what, last)
		}
	}
}

func find(v LsView, name string) *ls.Object {
	for i := range v.Objects {
		if v.Objects[i].Name == name {
			return &v.Objects[i]
		}
	}
	return nil
}

// TestDashboardEvents: the ls stream shows a lock with its holder's
// identity when taken and free when released; the object stream shows a
// fair lock's queue in Redis order.
func TestDashboardEvents(t *testing.T) {
	t.Parallel()
	_, rdb := server(t)
	ctx := context.Background()
	srv, _ := dashServer(t, rdb, dashOptions{})
	ch := events(t, srv, "/events/ls")
	nextLs(t, ch, "an empty list", func(v LsView) bool { return v.Error == "" && len(v.Objects) == 0 && v.NowMs > 0 })

	h, client := holdLock(t, rdb, "d:lock")
	v := nextLs(t, ch, "d:lock held with its client", func(v LsView) bool {
		o := find(v, "d:lock")
		return o != nil && o.Held && len(o.Holders) == 1 && o.Holders[0].Client != nil && o.Holders[0].HeldForMs != nil
	})
	o := find(v, "d:lock")
	if o.Holders[0].Client.PID == 0 || *o.Holders[0].ClientID != client.ID() || len(v.Objects) != 1 {
		t.Errorf("d:lock: %+v (objects %s)", o.Holders[0], lsNames(*v.Result))
	}
	if err := h.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	nextLs(t, ch, "d:lock released", func(v LsView) bool { return find(v, "d:lock") == nil })

	// The fair lock's queue, in Redis' order, on the object's stream.
	fh, err := client.FairLock("d:fair").Lock(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Unlock(context.Background())
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for i := range 3 {
		go func() { _, _ = client.FairLock("d:fair").Lock(wctx) }()
		waitFor(t, 30*time.Second, "waiter queued", func() (bool, string) {
			n := rdb.LLen(ctx, keys.FairLockQueue("d:fair")).Val()
			return n == int64(i+1), fmt.Sprint(n)
		})
	}
	order := rdb.LRange(ctx, keys.FairLockQueue("d:fair"), 0, -1).Val()
	och := events(t, srv, "/events/object?name="+url.QueryEscape("d:fair"))
	select {
	case e := <-och:
		var ov ObjectView
		if err := json.Unmarshal([]byte(e[1]), &ov); err != nil || e[0] != "object" {
			t.Fatalf("object event %q: %v %s", e[0], err, e[1])
		}
		var got []string
		for _, q := range ov.Queue {
			got = append(got, q.Field)
			if q.Client == nil || q.StaleInMs == nil {
				t.Errorf("waiter %+v lacks its client or timeout", q)
			}
		}
		if strings.Join(got, " ") != strings.Join(order, " ") || ov.Kind != classify.FairLock || len(ov.Holders) != 1 {
			t.Errorf("queue %v, want Redis' %v; %+v", got, order, ov.Report)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no object event")
	}
}

// TestDashboardToken: with a token every request needs it; ?token= sets
// the cookie; a foreign Host is refused on loopback.
func TestDashboardToken(t *testing.T) {
	t.Parallel()
	_, rdb := server(t)
	srv, _ := dashServer(t, rdb, dashOptions{token: "s3cret"})
	noRedirect := *srv.Client()
	noRedirect.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	get := func(path string, hdr map[string]string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, srv.URL+path, nil)
		for k, v := range hdr {
			if k == "Host" {
				req.Host = v
			} else {
				req.Header.Set(k, v)
			}
		}
		res, err := noRedirect.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		return res
	}
	for _, tc := range []struct {
		path string
		hdr  map[string]string
		want int
	}{
		{"/", nil, http.StatusUnauthorized},
		{"/api/ls", nil, http.StatusUnauthorized},
		{"/metrics", nil, http.StatusUnauthorized},
		{"/static/app.css", nil, http.StatusUnauthorized},
		{"/events/ls", nil, http.StatusUnauthorized},
		{"/?token=wrong", nil, http.StatusUnauthorized},
		{"/api/ls", map[string]string{"Authorization": "Bearer s3cre"}, http.StatusUnauthorized},
		{"/api/ls", map[string]string{"Cookie": tokenCookie + "=nope"}, http.StatusUnauthorized},
		{"/api/ls", map[string]string{"Authorization": "Bearer s3cret"}, http.StatusOK},
		{"/api/ls", map[string]string{"X-Redisson-Token": "s3cret"}, http.StatusOK},
		{"/metrics", map[string]string{"Cookie": tokenCookie + "=s3cret"}, http.StatusOK},
		{"/?token=s3cret", nil, http.StatusSeeOther},
		{"/api/ls", map[string]string{"Authorization": "Bearer s3cret", "Host": "evil.example:80"}, http.StatusForbidden},
	} {
		if res := get(tc.path, tc.hdr); res.StatusCode != tc.want {
			t.Errorf("GET %s %v: %s, want %d", tc.path, tc.hdr, res.Status, tc.want)
		}
	}
	res := get("/object?name=x&token=s3cret", nil)
	if loc := res.Header.Get("Location"); loc != "/object?name=x" {
		t.Errorf("?token= redirects to %q", loc)
	}
	var cookie *http.Cookie
	for _, c := range res.Cookies() {
		if c.Name == tokenCookie {
			cookie = c
		}
	}
	if cookie == nil || cookie.Value != "s3cret" || !cookie.HttpOnly || cookie.SameSite != http.SameSiteStrictMode {
		t.Errorf("cookie %+v", cookie)
	}
}

// TestDashboardWrites: without --allow-writes the write endpoints do not
// exist; with it they need the anti-forgery header and do their work.
func TestDashboardWrites(t *testing.T) {
	t.Parallel()
	_, rdb := server(t)
	ctx := context.Background()
	post := func(srv *httptest.Server, path, body string, marked bool) (int, WriteResult) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, srv.URL+path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		if marked {
			req.Header.Set("X-Redisson-Dashboard", "1")
		}
		res, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var wr WriteResult
		_ = json.NewDecoder(res.Body).Decode(&wr)
		return res.StatusCode, wr
	}
	h, _ := holdLock(t, rdb, "w:lock")
	ro, _ := dashServer(t, rdb, dashOptions{})
	for _, p := range []string{"/api/force-unlock", "/api/permits", "/api/delete"} {
		if code, _ := post(ro, p, `{"name":"w:lock"}`, true); code != http.StatusNotFound && code != http.StatusMethodNotAllowed {
			t.Errorf("read-only POST %s: %d", p, code)
		}
	}
	var cfg DashConfig
	res, err := ro.Client().Get(ro.URL + "/api/config")
	if err != nil {
		t.Fatal(err)
	}
	_ = json.NewDecoder(res.Body).Decode(&cfg)
	res.Body.Close()
	if cfg.AllowWrites {
		t.Errorf("read-only config: %+v", cfg)
	}
	// The page's footer shows the version the config gives.
	if want := "redisson v" + redisson.Version + " ("; !strings.HasPrefix(cfg.Version, want) {
		t.Errorf("config version %q, want it to start with %q", cfg.Version, want)
	}
	if rdb.Exists(ctx, "w:lock").Val() != 1 {
		t.Fatal("the lock went away")
	}

	rw, _ := dashServer(t, rdb, dashOptions{allowWrites: true})
	if code, _ := post(rw, "/api/force-unlock", `{"name":"w:lock"}`, false); code != http.StatusForbidden {
		t.Errorf("unmarked write: %d", code)
	}
	if code, wr := post(rw, "/api/force-unlock", `{"name":"w:lock"}`, true); code != http.StatusOK || !wr.OK {
		t.Errorf("force-unlock: %d %+v", code, wr)
	}
	if rdb.Exists(ctx, "w:lock").Val() != 0 {
		t.Error("force-unlock left the lock")
	}
	waitFor(t, 30*time.Second, "the holder to learn it lost the lock", func() (bool, string) {
		return h.Err() != nil, fmt.Sprint(h.Err())
	})
	if code, wr := post(rw, "/api/permits", `{"name":"w:sem","op":"set","n":5}`, true); code != http.StatusOK || !wr.OK {
		t.Errorf("set permits: %d %+v", code, wr)
	}
	if code, wr := post(rw, "/api/permits", `{"name":"w:sem","op":"add","n":-2}`, true); code != http.StatusOK || !wr.OK {
		t.Errorf("add permits: %d %+v", code, wr)
	}
	if v := rdb.Get(ctx, "w:sem").Val(); v != "3" {
		t.Errorf("permits %q, want 3", v)
	}
	if err := rdb.RPush(ctx, "w:list", "x").Err(); err != nil {
		t.Fatal(err)
	}
	if code, wr := post(rw, "/api/permits", `{"name":"w:list","op":"set","n":1}`, true); code != http.StatusConflict || wr.OK {
		t.Errorf("permits of a list: %d %+v", code, wr)
	}
	if code, wr := post(rw, "/api/force-unlock", `{"name":"w:sem"}`, true); code != http.StatusConflict || wr.OK {
		t.Errorf("force-unlock of a semaphore: %d %+v", code, wr)
	}
	if code, wr := post(rw, "/api/delete", `{"name":"w:sem"}`, true); code != http.StatusOK || !wr.OK {
		t.Errorf("delete: %d %+v", code, wr)
	}
	if rdb.Exists(ctx, "w:sem").Val() != 0 {
		t.Error("delete left the key")
	}
	if code, _ := post(rw, "/api/delete", `{}`, true); code != http.StatusBadRequest {
		t.Errorf("delete without a name: %d", code)
	}
}

// TestDashboardMetrics: /metrics in Prometheus text format.
func TestDashboardMetrics(t *testing.T) {
	t.Parallel()
	_, rdb := server(t)
	ctx := context.Background()
	holdLock(t, rdb, "m:lock")
	client, err := redisson.New(rdb)
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	if _, err := client.Semaphore("m:sem").TrySetPermits(ctx, 3); err != nil {
		t.Fatal(err)
	}
	subscribe(t, rdb, "redisson_sc:{m:sem}")
	if _, err := client.CountDownLatch("m:latch").TrySetCount(ctx, 2); err != nil {
		t.Fatal(err)
	}
	subscribe(t, rdb, "redisson_countdownlatch__channel__{m:latch}")
	holdLock(t, rdb, `m:"odd"`) // a lock with an odd name
	srv, _ := dashServer(t, rdb, dashOptions{})
	res, err := srv.Client().Get(srv.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	out := string(body)
	if !strings.HasPrefix(res.Header.Get("Content-Type"), "text/plain; version=0.0.4") {
		t.Errorf("Content-Type %q", res.Header.Get("Content-Type"))
	}
	for _, want := range []string{
		"# TYPE redisson_lock_held gauge\n",
		"\nredisson_up 1\n",
		`redisson_lock_held{name="m:lock",kind="lock"} 1` + "\n",
		`redisson_lock_holders{name="m:lock",kind="lock"} 1` + "\n",
		`redisson_waiters{name="m:sem",kind="semaphore"} 1` + "\n",
		`redisson_semaphore_permits{name="m:sem",kind="semaphore"} 3` + "\n",
		`redisson_latch_remaining{name="m:latch"} 2` + "\n",
		`redisson_objects{kind="lock"} 2` + "\n",
		`redisson_lock_held{name="m:\"odd\"",kind="lock"} 1` + "\n",
		"redisson_scan_truncated 0\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("/metrics lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "redisson-go:client") {
		t.Errorf("client records in /metrics:\n%s", out)
	}
	// Every line is a comment or name{labels} value.
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if !strings.HasPrefix(l, "# ") && !metricLine.MatchString(l) {
			t.Errorf("not a metric line: %q", l)
		}
	}
}

// metricLine is one sample of the Prometheus text format.
var metricLine = regexp.MustCompile(`^[a-z_]+(\{([a-z_]+="([^"\\]|\\.)*",?)+\})? -?[0-9.e+]+$`)
