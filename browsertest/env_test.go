package browsertest

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/redis/go-redis/v9"
)

// chromiumHint is how to get the browser the tests need.
const chromiumHint = `Chromium not found ($CHROMIUM, else /usr/bin/chromium): run "make test" (it runs scripts/ensure-chromium.sh), ` +
	`or bash scripts/ensure-chromium.sh, or sudo apt-get install -y chromium (Debian); or set CHROMIUM to a Chrome/Chromium executable`

// redisHint is how to get redis-server.
const redisHint = `redis-server not found: run bash scripts/ensure-redis.sh, or sudo apt-get install -y redis-server; or set REDIS_SERVER`

var (
	// cliPath is the redisson CLI built by TestMain.
	cliPath string
	// chromiumPath is the browser the tests drive.
	chromiumPath string
	// artifacts is where the screenshots go.
	artifacts string
)

func TestMain(m *testing.M) { os.Exit(testMain(m)) }

func testMain(m *testing.M) int {
	if addr := os.Getenv(holderEnv); addr != "" {
		return holderMain(addr)
	}
	chromiumPath = os.Getenv("CHROMIUM")
	if chromiumPath == "" {
		chromiumPath = "/usr/bin/chromium"
	}
	if _, err := exec.LookPath(chromiumPath); err != nil {
		fmt.Fprintf(os.Stderr, "browsertest: %s (%v)\n", chromiumHint, err)
		return 1
	}
	if _, err := redisServer(); err != nil {
		fmt.Fprintf(os.Stderr, "browsertest: %v\n", err)
		return 1
	}
	artifacts = os.Getenv("BROWSERTEST_ARTIFACTS")
	if artifacts == "" {
		artifacts = "artifacts"
	}
	if err := os.MkdirAll(artifacts, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, "browsertest:", err)
		return 1
	}
	dir, err := os.MkdirTemp("", "redisson-browsertest-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "browsertest:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	cliPath = filepath.Join(dir, "redisson")
	// go test puts the GOROOT/bin of the go that runs it first on PATH.
	out, err := exec.Command("go", "build", "-o", cliPath, "github.com/goredisson/redisson/cmd/redisson").CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "browsertest: go build of the CLI failed: %v\n%s", err, out)
		return 1
	}
	return m.Run()
}

// redisServer returns the redis-server to run: $REDIS_SERVER, else
// redis-server on PATH.
func redisServer() (string, error) {
	bin := os.Getenv("REDIS_SERVER")
	if bin == "" {
		bin = "redis-server"
	}
	p, err := exec.LookPath(bin)
	if err != nil {
		return "", fmt.Errorf("%s (%v)", redisHint, err)
	}
	return p, nil
}

// freePort returns a loopback port nobody listens on now.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// startRedis starts a private redis-server (no persistence) for the test
// and returns its address and a client; both end at cleanup.
func startRedis(t *testing.T) (string, *redis.Client) {
	t.Helper()
	bin, err := redisServer()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for attempt := 0; ; attempt++ {
		port := freePort(t)
		addr := "127.0.0.1:" + strconv.Itoa(port)
		cmd := exec.Command(bin, "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
			"--dir", dir, "--logfile", filepath.Join(dir, "redis.log"))
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		rdb := redis.NewClient(&redis.Options{Addr: addr})
		ok := false
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			ctx, cancel := context.WithTimeout(context.Background(), 250*time.Millisecond)
			err := rdb.Ping(ctx).Err()
			cancel()
			if err == nil {
				ok = true
				break
			}
			if cmd.ProcessState != nil {
				break
			}
		}
		if ok {
			t.Cleanup(func() {
				_ = rdb.Close()
				_ = cmd.Process.Kill()
				_ = cmd.Wait()
			})
			return addr, rdb
		}
		_ = rdb.Close()
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if attempt == 3 {
			log, _ := os.ReadFile(filepath.Join(dir, "redis.log"))
			t.Fatalf("redis-server did not start on %s:\n%s", addr, log)
		}
	}
}

var dashURL = regexp.MustCompile(`http://127\.0\.0\.1:[0-9]+/`)

// startDashboard runs "redisson dashboard" on a free loopback port over
// the Redis at addr and returns its base URL ("http://127.0.0.1:N/").
func startDashboard(t *testing.T, addr string, args ...string) string {
	t.Helper()
	u, _ := startDashboardProc(t, addr, args...)
	return u
}

// startDashboardProc is startDashboard that also returns the dashboard's
// process id.
func startDashboardProc(t *testing.T, addr string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(cliPath, append([]string{"dashboard", "--redis", "redis://" + addr, "--listen", "127.0.0.1:0"}, args...)...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("dashboard ended with %v; stderr:\n%s", err, stderr.String())
			}
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
			t.Errorf("dashboard did not stop on SIGINT within 10s")
		}
	})
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		if sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
		for sc.Scan() {
		}
	}()
	select {
	case l, ok := <-lines:
		if u := dashURL.FindString(l); ok && u != "" {
			return u, cmd.Process.Pid
		}
		t.Fatalf("dashboard printed %q; stderr:\n%s", l, stderr.String())
	case <-time.After(30 * time.Second):
		t.Fatalf("dashboard did not start; stderr:\n%s", stderr.String())
	}
	return "", 0
}

// browser starts a headless Chromium with a fresh profile for the test.
func browser(t *testing.T) context.Context {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromiumPath),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("no-default-browser-check", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.Flag("mute-audio", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1360, 860),
	}
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() {
		cancel()
		cancelA()
	})
	// Start the browser now, so that a failure to start is reported here.
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatalf("cannot start %s: %v (%s)", chromiumPath, err, chromiumHint)
	}
	return ctx
}

// js quotes s as a JavaScript string literal.
func js(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// within polls the JavaScript expression until it is truthy, failing the
// test after d.
func within(t *testing.T, ctx context.Context, d time.Duration, what, expr string) {
	t.Helper()
	if d <= 0 {
		d = time.Millisecond
	}
	deadline := time.Now().Add(d)
	_, err := chromedp.Run(ctx, chromedp.Poll[chromedp.Void](expr, chromedp.WithPollingTimeout(d), chromedp.WithPollingInterval(25*time.Millisecond)))
	// Right after a navigation the poll may go to the document it replaced
	// (chromedp learns of the new one by an event): poll the new one.
	for staleContext(err) && time.Now().Before(deadline) {
		_, err = chromedp.Run(ctx, chromedp.Poll[chromedp.Void](expr, chromedp.WithPollingTimeout(max(time.Until(deadline), time.Millisecond)), chromedp.WithPollingInterval(25*time.Millisecond)))
	}
	if err != nil {
		text, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body.innerText`))
		if errors.Is(err, chromedp.ErrPollingTimeout) || errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("not within %v: %s\npage:\n%s", d, what, text)
		}
		t.Fatalf("%s: %v\npage:\n%s", what, err, text)
	}
}

// staleContext reports an evaluation sent to a document a navigation has
// replaced, Chrome's "Cannot find context with specified id".
func staleContext(err error) bool {
	return err != nil && strings.Contains(err.Error(), "Cannot find context with specified id")
}

// navigate opens url and waits until its document is loaded and answers.
func navigate(t *testing.T, ctx context.Context, url string) {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.Navigate(url)); err != nil {
		t.Fatal(err)
	}
	within(t, ctx, 10*time.Second, "the new document is loaded", `document.readyState === "complete"`)
}

// evaluate is chromedp.Evaluate retried, until 10 s have passed, on
// staleContext only.
func evaluate[T any](ctx context.Context, expr string) (T, error) {
	deadline := time.Now().Add(10 * time.Second)
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	for staleContext(err) && time.Now().Before(deadline) {
		v, err = chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	}
	return v, err
}

// screenshot saves the whole page as artifacts/<name>.png.
func screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	p := filepath.Join(artifacts, name+".png")
	if err := os.WriteFile(p, png, 0o644); err != nil {
		t.Fatal(err)
	}
	abs, _ := filepath.Abs(p)
	t.Logf("screenshot: %s", abs)
}
