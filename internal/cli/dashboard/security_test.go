package dashboard

import (
	"context"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
)

// TestDashboardSecurityHeaders: every response, a refusal included,
// forbids framing and inline script; the pages hold no inline script,
// handler or style for the policy to block.
func TestDashboardSecurityHeaders(t *testing.T) {
	t.Parallel()
	_, rdb := server(t)
	open, _ := dashServer(t, rdb, dashOptions{allowWrites: true})
	locked, _ := dashServer(t, rdb, dashOptions{token: "0123456789abcdef"})
	for _, tc := range []struct {
		srv    string
		method string
		path   string
		host   string
		want   int
	}{
		{open.URL, http.MethodGet, "/", "", http.StatusOK},
		{open.URL, http.MethodGet, "/object?name=x", "", http.StatusOK},
		{open.URL, http.MethodGet, "/static/object.js", "", http.StatusOK},
		{open.URL, http.MethodGet, "/static/app.css", "", http.StatusOK},
		{open.URL, http.MethodGet, "/api/ls", "", http.StatusOK},
		{open.URL, http.MethodGet, "/api/config", "", http.StatusOK},
		{open.URL, http.MethodGet, "/metrics", "", http.StatusOK},
		{open.URL, http.MethodGet, "/nope", "", http.StatusNotFound},
		{open.URL, http.MethodPost, "/api/delete", "", http.StatusForbidden},
		{open.URL, http.MethodGet, "/", "evil.example", http.StatusForbidden},
		{locked.URL, http.MethodGet, "/", "", http.StatusUnauthorized},
	} {
		req, _ := http.NewRequest(tc.method, tc.srv+tc.path, strings.NewReader(`{"name":"x"}`))
		if tc.host != "" {
			req.Host = tc.host
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != tc.want {
			t.Errorf("%s %s: %s, want %d", tc.method, tc.path, res.Status, tc.want)
		}
		if got := res.Header.Get("X-Frame-Options"); got != "DENY" {
			t.Errorf("%s %s (%d): X-Frame-Options %q", tc.method, tc.path, res.StatusCode, got)
		}
		csp := res.Header.Get("Content-Security-Policy")
		for _, want := range []string{"frame-ancestors 'none'", "script-src 'self'", "default-src 'self'"} {
			if !strings.Contains(csp, want) {
				t.Errorf("%s %s (%d): CSP %q lacks %q", tc.method, tc.path, res.StatusCode, csp, want)
			}
		}
		if strings.Contains(csp, "unsafe-inline") || strings.Contains(csp, "unsafe-eval") {
			t.Errorf("%s %s: CSP %q allows inline script or eval", tc.method, tc.path, csp)
		}
		if strings.HasSuffix(tc.path, "/") || strings.HasPrefix(tc.path, "/object") {
			if m := inlineCode.FindString(string(body)); res.StatusCode == http.StatusOK && m != "" {
				t.Errorf("%s holds inline code the policy blocks: %q", tc.path, m)
			}
		}
	}
}

// inlineCode is a script element with a body, an event handler or a style
// attribute in a page.
var inlineCode = regexp.MustCompile(`<script(\s[^>]*)?>[^<]+</script>|<script>[^<]*</script>|\son[a-z]+=|\sstyle=|javascript:`)

// TestDashboardWriteOrigin: a write whose Origin is another site's is
// refused, even with the anti-forgery header; the dashboard's own origin
// and a client that sends none (curl) may write.
func TestDashboardWriteOrigin(t *testing.T) {
	t.Parallel()
	_, rdb := server(t)
	ctx := context.Background()
	srv, _ := dashServer(t, rdb, dashOptions{allowWrites: true})
	own := srv.URL // http://127.0.0.1:port
	for _, tc := range []struct {
		origin string
		want   int
	}{
		{"http://evil.example", http.StatusForbidden},
		{"null", http.StatusForbidden},
		{"http://127.0.0.1:1", http.StatusForbidden},
		{"https://evil.example" + strings.TrimPrefix(own, "http://"), http.StatusForbidden},
		{own + "/path", http.StatusForbidden},
		{own, http.StatusOK},
		{"", http.StatusOK},
	} {
		if err := rdb.Set(ctx, "o:sem", "1", 0).Err(); err != nil {
			t.Fatal(err)
		}
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/api/permits", strings.NewReader(`{"name":"o:sem","op":"set","n":7}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Redisson-Dashboard", "1")
		if tc.origin != "" {
			req.Header.Set("Origin", tc.origin)
		}
		res, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != tc.want {
			t.Errorf("Origin %q: %s %s, want %d", tc.origin, res.Status, body, tc.want)
		}
		written := rdb.Get(ctx, "o:sem").Val() == "7"
		if written != (tc.want == http.StatusOK) {
			t.Errorf("Origin %q: written %v", tc.origin, written)
		}
	}
}
