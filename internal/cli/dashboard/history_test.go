package dashboard

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"
)

// getJSON fetches path from srv into v and returns the status.
func getJSON(t *testing.T, url string, v any) int {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode == http.StatusOK {
		if err := json.Unmarshal(body, v); err != nil {
			t.Fatalf("%s: %v in %s", url, err, body)
		}
	}
	return res.StatusCode
}

// TestHistoryEndpoints: while a page is open the scans are recorded; the
// object's history has a point per scan with its holders, waiters and
// hold age, and the sparklines answer for the names asked.
func TestHistoryEndpoints(t *testing.T) {
	t.Parallel()
	_, rdb := server(t)
	holdLock(t, rdb, "orders:7")
	subscribe(t, rdb, "redisson_lock__channel:{orders:7}")
	srv, d := dashServer(t, rdb, dashOptions{holdWarn: time.Minute})
	// An object page keeps the scans running.
	events(t, srv, "/events/object?name=orders:7")

	var v HistoryView
	// The holder's record lists the hold at its next write, and from then
	// on the hold's age is known.
	waitFor(t, 15*time.Second, "three reads of orders:7 in its history, the last with its hold's age", func() (bool, string) {
		v = HistoryView{}
		getJSON(t, srv.URL+"/api/history?name=orders:7", &v)
		for _, l := range v.Lines {
			if l.Key == "hold_age" && len(l.Values) > 0 && l.Values[len(l.Values)-1] != nil {
				return len(v.T) >= 3, fmt.Sprintf("%d points", len(v.T))
			}
		}
		return false, fmt.Sprintf("%+v", v)
	})
	if v.HoldWarnMs != time.Minute.Milliseconds() || v.WindowMs != (15*time.Minute).Milliseconds() || v.Kind != "lock" {
		t.Errorf("history head %+v", v)
	}
	got := map[string][]*int64{}
	for _, l := range v.Lines {
		got[l.Key] = l.Values
		if len(l.Values) != len(v.T) {
			t.Errorf("line %s has %d values for %d points", l.Key, len(l.Values), len(v.T))
		}
	}
	last := len(v.T) - 1
	for key, want := range map[string]int64{"holders": 1, "waiters": 1} {
		if vals := got[key]; vals == nil || vals[last] == nil || *vals[last] != want {
			t.Errorf("line %s: %v, want the last point %d", key, vals, want)
		}
	}
	if got["hold_age"] == nil {
		t.Errorf("no hold age line in %+v", v.Lines)
	}

	var sp SparksView
	q := url.Values{"name": {"orders:7", "nothing"}}
	if code := getJSON(t, srv.URL+"/api/sparks?"+q.Encode(), &sp); code != http.StatusOK {
		t.Fatalf("sparks: %d", code)
	}
	if s, ok := sp.Sparks["orders:7"]; !ok || len(s.V) < 3 || s.V[len(s.V)-1] != 2 || len(sp.Sparks) != 1 {
		t.Errorf("sparks %+v, want orders:7's holders+waiters 2 and nothing else", sp)
	}
	if sp.SpanMs != sparkSpan.Milliseconds() {
		t.Errorf("span %d", sp.SpanMs)
	}
	if d.history().Len() > d.history().MaxObjects() {
		t.Errorf("%d tracked over the bound", d.history().Len())
	}

	var cfg DashConfig
	getJSON(t, srv.URL+"/api/config", &cfg)
	if cfg.HoldWarnMs != 60000 {
		t.Errorf("config hold_warn_ms %d", cfg.HoldWarnMs)
	}
	if code := getJSON(t, srv.URL+"/api/history", &v); code != http.StatusBadRequest {
		t.Errorf("history without a name: %d", code)
	}
}

// TestHistoryGuarded: the history endpoints sit behind the same token
// and Host checks, with the same security headers, as every route.
func TestHistoryGuarded(t *testing.T) {
	t.Parallel()
	_, rdb := server(t)
	open, _ := dashServer(t, rdb, dashOptions{})
	locked, _ := dashServer(t, rdb, dashOptions{token: "0123456789abcdef"})
	for _, tc := range []struct {
		srv, path, host, token string
		want                   int
	}{
		{open.URL, "/api/history?name=x", "", "", http.StatusOK},
		{open.URL, "/api/sparks?name=x", "", "", http.StatusOK},
		{open.URL, "/static/history.js", "", "", http.StatusOK},
		{open.URL, "/static/history.css", "", "", http.StatusOK},
		{open.URL, "/api/history?name=x", "evil.example", "", http.StatusForbidden},
		{open.URL, "/api/sparks?name=x", "evil.example", "", http.StatusForbidden},
		{locked.URL, "/api/history?name=x", "", "", http.StatusUnauthorized},
		{locked.URL, "/api/sparks?name=x", "", "", http.StatusUnauthorized},
		{locked.URL, "/api/history?name=x", "", "0123456789abcdef", http.StatusOK},
	} {
		req, _ := http.NewRequest(http.MethodGet, tc.srv+tc.path, nil)
		if tc.host != "" {
			req.Host = tc.host
		}
		if tc.token != "" {
			req.Header.Set("Authorization", "Bearer "+tc.token)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != tc.want {
			t.Errorf("%s (host %q, token %v): %s, want %d", tc.path, tc.host, tc.token != "", res.Status, tc.want)
		}
		if res.Header.Get("X-Frame-Options") != "DENY" || res.Header.Get("Content-Security-Policy") != csp {
			t.Errorf("%s: security headers missing", tc.path)
		}
	}
}

// TestHistoryRecorded: with --record the scans, and the history, run with
// no page open, so that a page opened later shows what came before it;
// without it nothing reads Redis while nobody watches.
func TestHistoryRecorded(t *testing.T) {
	t.Parallel()
	_, rdb := server(t)
	holdLock(t, rdb, "orders:8")
	rec, _ := dashServer(t, rdb, dashOptions{record: true})
	idle, _ := dashServer(t, rdb, dashOptions{})
	history := func(srv *httptest.Server) HistoryView {
		var v HistoryView
		if code := getJSON(t, srv.URL+"/api/history?name=orders:8", &v); code != http.StatusOK {
			t.Fatalf("history: %d", code)
		}
		return v
	}
	waitFor(t, 15*time.Second, "three reads of orders:8 with no page open", func() (bool, string) {
		v := history(rec)
		return len(v.T) >= 3, fmt.Sprintf("%d points", len(v.T))
	})
	if v := history(idle); len(v.T) != 0 {
		t.Errorf("without --record, %d reads were kept with no page open", len(v.T))
	}
}
