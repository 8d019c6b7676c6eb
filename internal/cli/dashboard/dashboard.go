package dashboard

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/cli/admin"
	"github.com/goredisson/redisson/internal/cli/cliflag"
	"github.com/goredisson/redisson/internal/cli/conn"
	"github.com/goredisson/redisson/internal/cli/history"
	"github.com/goredisson/redisson/internal/cli/inspect"
	"github.com/goredisson/redisson/internal/cli/ls"
	"github.com/goredisson/redisson/internal/cli/metrics"
	"github.com/goredisson/redisson/internal/cli/objinfo"
	"github.com/goredisson/redisson/internal/cli/watch"
)

const dashboardDescription = `
Serves a web page with the "redisson ls" table, updating live (server-sent
events, no reloads; filter and sort it in the page), and a page per object:
its holders with their client (host, pid, program, from the holders'
registration records) and how long they have held, the fair-lock queue in
order with each waiter's timeout, the waiters on its channels, semaphore
permits and each expirable permit's expiry, the latch count, the rate
limiter's grants over the last interval as a small chart, TTLs counting
down. /metrics on the same server exports the same state in Prometheus
text format (locks held, holders, waiters, queue lengths, permits, counts,
the oldest hold's age per kind and of the --metrics-top oldest holds per
name, holds by client, gone holders per kind), bounded like ls by --max-keys: past it, held, waited-on and --pin'ned
objects are kept and the page says how many keys were left out. A holder
whose client has not refreshed its record for two refresh periods is
marked gone, with how long ago it was last seen.

While a page is open, the dashboard keeps what each read saw over the
last 15 minutes, per object: holders, waiters, queue length, the oldest
hold's age, permits available and acquired, a latch's count. An object
page draws them as charts; the list shows, for the rows on screen, a
sparkline of holders plus waiters over the last 5 minutes. Memory is
bounded: at most --history-objects objects (those held, waited on, queued
or pinned first, then those active most recently), each with at most 120
samples as read plus 90 ten-second buckets of the older ones (about
10 KB an object). With --record the reads, and the history, go on with
no page open, so that a page opened during an incident shows the 15
minutes before it. --hold-warn AGE marks holds older than AGE, with a
note, on the list and on the object page.

The page is read-only unless --allow-writes is given, which adds
force-unlock (plain, fair and read-write locks), set/add permits
(semaphores) and delete (the object's keys), each behind a confirmation;
without it those endpoints do not exist.

It listens on loopback (127.0.0.1:8080) by default and then answers only
requests whose Host is a loopback name (against DNS rebinding). A --listen
address that is not loopback requires --token (or $REDISSON_DASHBOARD_TOKEN):
every request must then carry it, as "Authorization: Bearer TOKEN", a
X-Redisson-Token header, or the cookie set by a first visit to
/?token=TOKEN. A token shorter than 16 bytes is refused. Writes also need
the header X-Redisson-Dashboard: 1, which a page of another site cannot
send, and are refused (403) when their Origin is not the dashboard's own.
Every response forbids framing (X-Frame-Options: DENY, CSP
frame-ancestors 'none') and inline script.

The ls state is read once per --interval while a page is open, or always
with --record (one scan for
all pages, an object page's included: the scan feeds the history),
incrementally: each read reads again the hot objects (waited on, queued
for, held by a client with a record, listed in a record, pinned, TTL
passed) and the next slice of a rotating SCAN (a whole pass takes 10
intervals, or one per 1000 keys read if more), so a change to a hot object
shows at the next read and any other (a lock taken by a client without a
record and without waiters, a key added or deleted) within one whole pass
begun after it; the first read after opening is a whole scan. An object
page also reads its object once per --interval. The
dashboard's own client registers no record. Stops on SIGINT or SIGTERM (exit
0).`

const dashboardExamples = `  redisson dashboard                                       # http://127.0.0.1:8080/
  redisson dashboard --listen 127.0.0.1:9000 --allow-writes
  redisson dashboard --listen 0.0.0.0:8080 --token "$(openssl rand -hex 16)"
  curl -s http://127.0.0.1:8080/metrics | grep redisson_lock_held`

// dashOptions are the dashboard's flags.
type dashOptions struct {
	listen      string
	token       string
	allowWrites bool
	ls          ls.Options
	interval    time.Duration
	timeout     time.Duration
	metrics     metrics.Options
	// holdWarn marks holds older than it (0: none); historyObjects
	// bounds the objects whose history is kept.
	holdWarn       time.Duration
	historyObjects int
	// record keeps the scans, and so the history, running with no page
	// open.
	record bool
}

//go:embed dashboard_assets
var dashboardAssets embed.FS

// Command is "redisson dashboard".
func Command(args []string) int {
	fs := cliflag.NewFlagSet("dashboard", "redisson dashboard [--listen ADDR] [--token T] [--allow-writes] [connection flags]",
		dashboardDescription, dashboardExamples)
	var cf conn.Flags
	cf.Register(fs)
	var o dashOptions
	fs.StringVar(&o.listen, "listen", "127.0.0.1:8080", "`address` to serve on; one that is not loopback needs --token (port 0: any free port)")
	fs.StringVar(&o.token, "token", os.Getenv("REDISSON_DASHBOARD_TOKEN"), "`secret` every request must carry (default $REDISSON_DASHBOARD_TOKEN)")
	fs.BoolVar(&o.allowWrites, "allow-writes", false, "add force-unlock, set/add permits and delete, each behind a confirmation")
	pattern := fs.String("pattern", "*", "SCAN MATCH `glob` of the objects listed")
	maxKeys := fs.Int("max-keys", 10000, "read at most this many `keys` per refresh, plus those of held, waited-on and pinned objects (also /metrics)")
	var pins ls.Pins
	fs.Var(&pins, "pin", "never leave out the keys this `NAME or PATTERN` matches (repeatable)")
	scanCount := fs.Int64("scan-count", 1000, "the COUNT hint of each SCAN")
	fs.DurationVar(&o.interval, "interval", time.Second, "time between two reads of the state while a page is open (or always, with --record)")
	fs.IntVar(&o.metrics.Top, "metrics-top", metrics.DefaultTop, "/metrics gives a hold-age series of its own to the `N` oldest holds only, so that its series stay bounded however many locks are held (0: none)")
	fs.DurationVar(&o.holdWarn, "hold-warn", 0, "mark holds older than this `age` on the list and the object page (0: never)")
	fs.IntVar(&o.historyObjects, "history-objects", history.DefaultMaxObjects, "keep the 15-minute history of at most this many `objects` (held, waited-on and pinned ones first)")
	fs.BoolVar(&o.record, "record", false, "read every --interval and keep the history with no page open too, so that a page opened later shows the 15 minutes before it (Redis serves the scans with nobody watching)")
	pos, code, done := cliflag.ParseFlags(fs, args, true)
	if done {
		return code
	}
	if len(pos) > 0 {
		return cliflag.UsageError(fs, "no arguments expected, got %q (the pattern is --pattern)", pos)
	}
	if o.metrics.Top < 0 {
		return cliflag.UsageError(fs, "--metrics-top must not be negative")
	}
	if *maxKeys < 1 || *scanCount < 1 {
		return cliflag.UsageError(fs, "--max-keys and --scan-count must be at least 1")
	}
	if o.interval < watch.MinInterval {
		return cliflag.UsageError(fs, "--interval must be at least %v (got %v)", watch.MinInterval, o.interval)
	}
	if *pattern == "" {
		return cliflag.UsageError(fs, "--pattern must not be empty")
	}
	if o.holdWarn < 0 || o.historyObjects < 1 {
		return cliflag.UsageError(fs, "--hold-warn must not be negative and --history-objects must be at least 1")
	}
	loop, err := loopbackListen(o.listen)
	if err != nil {
		return cliflag.UsageError(fs, "--listen %q: %v", o.listen, err)
	}
	if !loop && o.token == "" {
		return cliflag.UsageError(fs, "--listen %q is not a loopback address: give --token (or $REDISSON_DASHBOARD_TOKEN), which every request must then carry", o.listen)
	}
	if o.token != "" && len(o.token) < MinTokenLen {
		return cliflag.UsageError(fs, "--token (or $REDISSON_DASHBOARD_TOKEN) is too short: %d byte(s), at least %d needed (make one with: openssl rand -hex 16)", len(o.token), MinTokenLen)
	}
	o.ls = ls.Options{Pattern: *pattern, MaxKeys: *maxKeys, ScanCount: *scanCount, Pins: pins}
	o.timeout = cf.Timeout

	cn, code := conn.ConnectOrExit(context.Background(), fs, &cf, nil)
	if cn == nil {
		return code
	}
	defer cn.Close()
	d := &dashboard{o: o, rdb: cn.RDB, display: cn.Display, loopback: loop}
	if o.allowWrites {
		d.client, err = redisson.New(cn.RDB, redisson.WithTimeout(cf.Timeout),
			func(o *redisson.Options) { o.Registration.Disabled = true })
		if err != nil {
			return cliflag.Errorf(fs.Name(), "%v", err)
		}
		defer d.client.Close()
	}
	return d.serve(fs.Name(), cn.Display)
}

// loopbackListen reports whether a listen address binds loopback only.
func loopbackListen(addr string) (bool, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false, err
	}
	return isLoopbackHost(host), nil
}

func isLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

// dashboard serves the pages, the event streams, the writes and /metrics.
type dashboard struct {
	o        dashOptions
	rdb      redis.UniversalClient
	client   *redisson.Client // writes; nil when read-only
	display  string
	loopback bool

	feedOnce sync.Once
	feed     *feed
	histOnce sync.Once
	hist     *history.Store
	// stop ends the event streams at shutdown.
	stopOnce sync.Once
	stop     chan struct{}
}

func (d *dashboard) stopped() <-chan struct{} {
	d.stopOnce.Do(func() { d.stop = make(chan struct{}) })
	return d.stop
}

func (d *dashboard) closing() {
	d.stopped()
	select {
	case <-d.stop:
	default:
		close(d.stop)
	}
}

// handler is the dashboard's routes behind the token and Host checks.
func (d *dashboard) handler() http.Handler {
	mux := http.NewServeMux()
	assets, _ := fs.Sub(dashboardAssets, "dashboard_assets")
	page := func(file string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			data, err := fs.ReadFile(assets, file)
			if err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Header().Set("Cache-Control", "no-store")
			_, _ = w.Write(data)
		}
	}
	mux.HandleFunc("GET /{$}", page("index.html"))
	mux.HandleFunc("GET /object", page("object.html"))
	mux.Handle("GET /static/", http.StripPrefix("/static/", http.FileServerFS(assets)))
	mux.HandleFunc("GET /api/config", d.config)
	mux.HandleFunc("GET /api/ls", d.apiLs)
	mux.HandleFunc("GET /api/object", d.apiObject)
	mux.HandleFunc("GET /events/ls", d.eventsLs)
	mux.HandleFunc("GET /events/overview", d.eventsOverview)
	mux.HandleFunc("GET /events/object", d.eventsObject)
	mux.HandleFunc("GET /metrics", d.metrics)
	mux.HandleFunc("GET /api/history", d.apiHistory)
	mux.HandleFunc("GET /api/sparks", d.apiSparks)
	if d.o.allowWrites {
		mux.HandleFunc("POST /api/force-unlock", d.write(d.forceUnlock))
		mux.HandleFunc("POST /api/permits", d.write(d.setPermits))
		mux.HandleFunc("POST /api/delete", d.write(d.deleteObject))
	}
	return d.guard(mux)
}

// tokenCookie carries the token after a first visit with ?token=.
const tokenCookie = "redisson_dashboard_token"

// guard refuses requests with a foreign Host (loopback mode) or without
// the token (when one is set).
func (d *dashboard) guard(next http.Handler) http.Handler {
	want := sha256.Sum256([]byte(d.o.token))
	ok := func(t string) bool {
		got := sha256.Sum256([]byte(t))
		return t != "" && subtle.ConstantTimeCompare(got[:], want[:]) == 1
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		securityHeaders(w.Header())
		if d.loopback {
			host := r.Host
			if h, _, err := net.SplitHostPort(host); err == nil {
				host = h
			}
			if !isLoopbackHost(host) {
				http.Error(w, "redisson dashboard: this server answers only loopback host names (Host "+r.Host+")", http.StatusForbidden)
				return
			}
		}
		if d.o.token == "" {
			next.ServeHTTP(w, r)
			return
		}
		if q := r.URL.Query().Get("token"); q != "" {
			if !ok(q) {
				http.Error(w, "redisson dashboard: wrong token", http.StatusUnauthorized)
				return
			}
			http.SetCookie(w, &http.Cookie{Name: tokenCookie, Value: q, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
			if r.Method == http.MethodGet {
				// Keep the token out of the address bar and history.
				u := *r.URL
				v := u.Query()
				v.Del("token")
				u.RawQuery = v.Encode()
				http.Redirect(w, r, u.RequestURI(), http.StatusSeeOther)
				return
			}
			next.ServeHTTP(w, r)
			return
		}
		t := r.Header.Get("X-Redisson-Token")
		if b, found := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); found {
			t = b
		}
		if t == "" {
			if c, err := r.Cookie(tokenCookie); err == nil {
				t = c.Value
			}
		}
		if !ok(t) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="redisson dashboard"`)
			http.Error(w, "redisson dashboard: a token is required: open /?token=TOKEN once, or send Authorization: Bearer TOKEN", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// csp lets the pages run only the dashboard's own script and style files
// (no inline script, no eval) and forbids every page from framing them.
const csp = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
	"object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// securityHeaders go on every response, refusals included: a page of
// another site that frames the dashboard could have its user click a
// force-unlock (clickjacking), so no page may frame it.
func securityHeaders(h http.Header) {
	h.Set("X-Frame-Options", "DENY")
	h.Set("Content-Security-Policy", csp)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
}

// MinTokenLen is the shortest --token accepted, in bytes: a shorter one
// is within reach of guessing over the network.
const MinTokenLen = 16

// budget bounds one read of the ls state.
func (d *dashboard) budget() time.Duration {
	return 4*d.o.timeout + time.Duration(d.o.ls.MaxKeys/ls.Batch+1)*d.o.timeout
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// DashConfig tells the page what the server allows.
type DashConfig struct {
	AllowWrites bool   `json:"allow_writes"`
	Redis       string `json:"redis"`
	Version     string `json:"version"`
	Pattern     string `json:"pattern"`
	MaxKeys     int    `json:"max_keys"`
	IntervalMs  int64  `json:"interval_ms"`
	HoldWarnMs  int64  `json:"hold_warn_ms"`
}

func (d *dashboard) config(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, DashConfig{AllowWrites: d.o.allowWrites, Redis: d.display, Version: admin.VersionLine(),
		Pattern: d.o.ls.Pattern, MaxKeys: d.o.ls.MaxKeys, IntervalMs: d.o.interval.Milliseconds(),
		HoldWarnMs: d.o.holdWarn.Milliseconds()})
}

// LsView is one state of the list: ls's result and when it was read.
type LsView struct {
	*ls.Result
	NowMs int64  `json:"now_ms"`
	Error string `json:"error,omitempty"`
}

func (d *dashboard) readLs(ctx context.Context) LsView {
	return d.lsView(ctx, func(ctx context.Context) (*ls.Result, error) { return ls.List(ctx, d.rdb, d.o.ls) })
}

// lsView reads the list with list: one whole List, or the next reading
// of the feed's incremental scanner.
func (d *dashboard) lsView(ctx context.Context, list func(context.Context) (*ls.Result, error)) LsView {
	ctx, cancel := context.WithTimeout(ctx, d.budget())
	defer cancel()
	res, err := list(ctx)
	v := LsView{Result: res, NowMs: time.Now().UnixMilli()}
	if err != nil {
		v.Result = &ls.Result{Pattern: d.o.ls.Pattern, Objects: []ls.Object{}, MaxKeys: d.o.ls.MaxKeys}
		v.Error = err.Error()
	}
	return v
}

func (d *dashboard) apiLs(w http.ResponseWriter, r *http.Request) {
	v := d.readLs(r.Context())
	status := http.StatusOK
	if v.Error != "" {
		status = http.StatusBadGateway
	}
	writeJSON(w, status, v)
}

// ObjectView is one state of an object page: inspect's report, the rate
// limiter's grants in the window, and when it was read.
type ObjectView struct {
	*inspect.Report
	Grants []WindowGrants `json:"grants"`
	NowMs  int64          `json:"now_ms"`
	Error  string         `json:"error,omitempty"`
}

// WindowGrants are one rate limiter window's grants still in the interval.
type WindowGrants struct {
	ClientID *string         `json:"client_id"`
	Grants   []objinfo.Grant `json:"grants"`
}

func (d *dashboard) readObject(ctx context.Context, name string) ObjectView {
	ctx, cancel := context.WithTimeout(ctx, 4*d.o.timeout)
	defer cancel()
	rep, err := inspect.Inspect(ctx, d.rdb, name)
	v := ObjectView{Report: rep, Grants: []WindowGrants{}, NowMs: time.Now().UnixMilli()}
	if err != nil {
		v.Report = &inspect.Report{Name: name}
		v.Error = err.Error()
		return v
	}
	if rep.RateLimiter != nil {
		for _, win := range rep.RateLimiter.Windows {
			g := win.InWindow
			if g == nil {
				g = []objinfo.Grant{}
			}
			v.Grants = append(v.Grants, WindowGrants{ClientID: win.ClientID, Grants: g})
		}
	}
	return v
}

func (d *dashboard) apiObject(w http.ResponseWriter, r *http.Request) {
	name := r.URL.Query().Get("name")
	if name == "" {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "name is required"})
		return
	}
	v := d.readObject(r.Context(), name)
	status := http.StatusOK
	if v.Error != "" {
		status = http.StatusBadGateway
	}
	writeJSON(w, status, v)
}

// serve serves the dashboard until SIGINT or SIGTERM.
func (d *dashboard) serve(prog, display string) int {
	ln, err := net.Listen("tcp", d.o.listen)
	if err != nil {
		return cliflag.Errorf(prog, "%v", err)
	}
	srv := &http.Server{Handler: d.handler(), ReadHeaderTimeout: 10 * time.Second}
	d.startRecording()
	mode := "read-only"
	if d.o.allowWrites {
		mode = "writes allowed"
	}
	fmt.Printf("redisson dashboard: http://%s/ (%s; Redis %s); Ctrl-C stops\n", ln.Addr(), mode, display)

	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case <-sigs:
	case err := <-served:
		return cliflag.Errorf(prog, "%v", err)
	}
	d.closing()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_ = srv.Shutdown(ctx)
	return cliflag.ExitOK
}
