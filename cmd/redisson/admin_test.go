package main

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/cli/cliflag"
	"github.com/goredisson/redisson/keys"
	"github.com/goredisson/redisson/ratelimit"
	"github.com/goredisson/redisson/semaphore"
)

// TestSemaphoreCommand: each action changes the semaphore as the library's
// call does, read back with the library.
func TestSemaphoreCommand(t *testing.T) {
	t.Parallel()
	url, rdb := server(t)
	ctx := context.Background()
	client, err := redisson.New(rdb)
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	sem := client.Semaphore("s")
	for _, tc := range []struct {
		args   []string
		stdout string
		want   int // permits afterwards, as the library reads them
	}{
		{[]string{"show"}, "0\n", 0},
		{[]string{"set", "5"}, `semaphore "s": 5 permits available` + "\n", 5},
		{[]string{"add", "3"}, `semaphore "s": 8 permits available` + "\n", 8},
		{[]string{"add", "-10"}, `semaphore "s": -2 permits available` + "\n", -2},
		{[]string{"set", "4"}, `semaphore "s": 4 permits available` + "\n", 4},
		{[]string{"show"}, "4\n", 4},
		{[]string{"drain"}, `semaphore "s": drained 4 permits` + "\n" + `semaphore "s": 0 permits available` + "\n", 0},
	} {
		r := cli(t, 30*time.Second, append([]string{"semaphore", "--redis", url, "s"}, tc.args...)...)
		if r.code != 0 || r.stdout != tc.stdout {
			t.Errorf("semaphore s %v: want exit 0 and %q:\n%v", tc.args, tc.stdout, r)
		}
		if n, err := sem.AvailablePermits(ctx); err != nil || n != tc.want {
			t.Errorf("after %v the library reads %d permits (%v), want %d", tc.args, n, err, tc.want)
		}
	}
	// set wakes a waiter, as the library's SetPermits does.
	if _, err := sem.DrainPermits(ctx); err != nil {
		t.Fatal(err)
	}
	got := make(chan error, 1)
	go func() { got <- sem.Acquire(ctx, 2) }()
	waitFor(t, 30*time.Second, "the waiter to subscribe", func() (bool, string) {
		n := numSub(t, rdb, keys.SemaphoreChannel("s"))
		return n == 1, fmt.Sprint(n)
	})
	if r := cli(t, 30*time.Second, "semaphore", "--redis", url, "s", "set", "2"); r.code != 0 {
		t.Fatalf("set 2:\n%v", r)
	}
	select {
	case err := <-got:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the waiter did not get the permits set by the CLI")
	}

	if err := rdb.HSet(ctx, "h", "f", "1").Err(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{"h", "set", "1"}, cliflag.ExitError, `semaphore "h": set permits: `},
		{[]string{"s", "set", "-1"}, cliflag.ExitUsage, "at least 0"},
		{[]string{"s", "add", "x"}, cliflag.ExitUsage, "N must be a whole number"},
		{[]string{"s", "set"}, cliflag.ExitUsage, "set needs 1 argument"},
		{[]string{"s", "drain", "3"}, cliflag.ExitUsage, "unexpected arguments"},
		{[]string{"s", "bump"}, cliflag.ExitUsage, "unknown action"},
		{[]string{"s"}, cliflag.ExitUsage, "no action"},
		{[]string{"", "show"}, cliflag.ExitUsage, "name is required"},
	} {
		r := cli(t, 30*time.Second, append([]string{"semaphore", "--redis", url}, tc.args...)...)
		if r.code != tc.code || !strings.Contains(r.stderr, tc.stderr) {
			t.Errorf("semaphore %v: want exit %d and %q:\n%v", tc.args, tc.code, tc.stderr, r)
		}
	}
	if v := rdb.HGet(ctx, "h", "f").Val(); v != "1" {
		t.Errorf("the hash changed: %q", v)
	}
}

// TestPermitsCommand: show lists the acquired permits the library took;
// release gives one back as the library's Release does.
func TestPermitsCommand(t *testing.T) {
	t.Parallel()
	url, rdb := server(t)
	ctx := context.Background()
	client, err := redisson.New(rdb)
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	pes := client.PermitExpirableSemaphore("p")
	if _, err := pes.TrySetPermits(ctx, 3); err != nil {
		t.Fatal(err)
	}
	leased, err := pes.Acquire(ctx, semaphore.WithLease(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	forever, err := pes.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	r := cli(t, 30*time.Second, "permits", "--redis", url, "p", "show")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "available  1\nacquired   2\n") ||
		!strings.Contains(r.stdout, "  "+leased+"  expires in ") || !strings.Contains(r.stdout, "  "+forever+"  no lease\n") {
		t.Fatalf("permits show:\n%v", r)
	}
	r = cli(t, 30*time.Second, "permits", "--redis", url, "p", "release", forever)
	if r.code != 0 || r.stdout != fmt.Sprintf("permit-expirable semaphore %q: permit %s released; 2 permits available\n", "p", forever) {
		t.Errorf("permits release:\n%v", r)
	}
	if n, err := pes.AcquiredPermits(ctx); err != nil || n != 1 {
		t.Errorf("after release the library reads %d acquired (%v), want 1", n, err)
	}
	if n, err := pes.AvailablePermits(ctx); err != nil || n != 2 {
		t.Errorf("after release the library reads %d available (%v), want 2", n, err)
	}
	// Released already: the library's ErrUnknownPermit, exit 1.
	r = cli(t, 30*time.Second, "permits", "--redis", url, "p", "release", forever)
	if r.code != cliflag.ExitError || !strings.Contains(r.stderr, `permit-expirable semaphore "p": release: permit `+forever) {
		t.Errorf("second release:\n%v", r)
	}
	r = cli(t, 30*time.Second, "permits", "--redis", url, "p", "release", "xyz")
	if r.code != cliflag.ExitError || !strings.Contains(r.stderr, "32 hex characters") {
		t.Errorf("release of a bad id:\n%v", r)
	}
	if r := cli(t, 30*time.Second, "permits", "--redis", url, "p", "release"); r.code != cliflag.ExitUsage {
		t.Errorf("release without ID:\n%v", r)
	}
	if ok, err := pes.TryRelease(ctx, leased); err != nil || !ok {
		t.Errorf("the leased permit is no longer held: %v %v", ok, err)
	}
}

// TestRateLimitCommand: set, show and acquire as the library's SetRate,
// Config and TryAcquire.
func TestRateLimitCommand(t *testing.T) {
	t.Parallel()
	url, rdb := server(t)
	ctx := context.Background()
	client, err := redisson.New(rdb)
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	lim := client.RateLimiter("api")

	r := cli(t, 30*time.Second, "ratelimit", "--redis", url, "api", "show")
	if r.code != cliflag.ExitError || !strings.Contains(r.stderr, `rate limiter "api": config: `) {
		t.Errorf("show before set:\n%v", r)
	}
	r = cli(t, 30*time.Second, "ratelimit", "--redis", url, "api", "set", "5", "1h")
	if r.code != 0 || r.stdout != `rate limiter "api": 5 permits per 1h0m0s (OVERALL); 5 available`+"\n" {
		t.Errorf("set:\n%v", r)
	}
	if c, err := lim.Config(ctx); err != nil || c != (ratelimit.Config{Type: ratelimit.Overall, Rate: 5, Interval: time.Hour}) {
		t.Errorf("the library reads config %+v (%v)", c, err)
	}
	r = cli(t, 30*time.Second, "ratelimit", "--redis", url, "api", "acquire", "3")
	if r.code != 0 || r.stdout != `acquired 3; rate limiter "api": 5 permits per 1h0m0s (OVERALL); 2 available`+"\n" {
		t.Errorf("acquire 3:\n%v", r)
	}
	if n, err := lim.AvailablePermits(ctx); err != nil || n != 2 {
		t.Errorf("the library reads %d available (%v), want 2", n, err)
	}
	r = cli(t, 30*time.Second, "ratelimit", "--redis", url, "api", "acquire", "3", "--wait", "100ms")
	if r.code != cliflag.ExitNotAcq || !strings.Contains(r.stderr, "3 permits not available within 100ms") {
		t.Errorf("acquire 3 of 2:\n%v", r)
	}
	r = cli(t, 30*time.Second, "ratelimit", "--redis", url, "api", "show")
	if r.code != 0 || !strings.Contains(r.stdout, "; 2 available") {
		t.Errorf("show:\n%v", r)
	}
	r = cli(t, 30*time.Second, "ratelimit", "--redis", url, "api", "set", "10", "1m", "--per-client", "--keep-alive", "2h")
	if r.code != 0 || !strings.Contains(r.stdout, "10 permits per 1m0s (PER_CLIENT), keys kept 2h0m0s after the last use; each client has its own window") {
		t.Errorf("set --per-client:\n%v", r)
	}
	want := ratelimit.Config{Type: ratelimit.PerClient, Rate: 10, Interval: time.Minute, KeepAlive: 2 * time.Hour}
	if c, err := lim.Config(ctx); err != nil || c != want {
		t.Errorf("the library reads config %+v (%v), want %+v", c, err, want)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"api", "set", "0", "1s"}, "RATE must be"},
		{[]string{"api", "set", "5", "soon"}, "INTERVAL must be"},
		{[]string{"api", "set", "5"}, "set needs 2 argument"},
		{[]string{"api", "acquire", "0"}, "N must be"},
		{[]string{"api", "show", "--per-client"}, "go with set"},
		{[]string{"api", "show", "--wait", "1s"}, "--wait goes with acquire"},
	} {
		r := cli(t, 30*time.Second, append([]string{"ratelimit", "--redis", url}, tc.args...)...)
		if r.code != cliflag.ExitUsage || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("ratelimit %v: want exit 2 and %q:\n%v", tc.args, tc.want, r)
		}
	}
}

// TestVersion: "version" and "--version" print the release version, then
// the build's module version (a test binary is "(devel)") and Go's.
func TestVersion(t *testing.T) {
	t.Parallel()
	want := "redisson v" + redisson.Version + " (github.com/goredisson/redisson (devel), "
	for _, args := range [][]string{{"version"}, {"--version"}} {
		r := cli(t, 30*time.Second, args...)
		if r.code != 0 || !strings.HasPrefix(r.stdout, want) || !strings.Contains(r.stdout, "go1.") {
			t.Errorf("%v: want a line starting %q:\n%v", args, want, r)
		}
	}
	if r := cli(t, 30*time.Second, "version", "extra"); r.code != cliflag.ExitUsage {
		t.Errorf("version extra:\n%v", r)
	}
}

// TestUnknownCommand: one line, with the closest command when there is one.
func TestUnknownCommand(t *testing.T) {
	t.Parallel()
	for arg, want := range map[string]string{
		"inspct":     `redisson: unknown command "inspct": did you mean "inspect"? ("redisson help" lists the commands)` + "\n",
		"semaphor":   `redisson: unknown command "semaphor": did you mean "semaphore"?`,
		"rate":       `did you mean "ratelimit"?`,
		"lst":        `did you mean "ls"?`,
		"frobnicate": `redisson: unknown command "frobnicate" ("redisson help" lists the commands)` + "\n",
	} {
		r := cli(t, 30*time.Second, arg)
		if r.code != cliflag.ExitUsage || !strings.Contains(r.stderr, want) || strings.Count(r.stderr, "\n") != 1 || r.stdout != "" {
			t.Errorf("redisson %s: want exit 2 and one line with %q:\n%v", arg, want, r)
		}
	}
}

// TestTimeoutFlag: every command talking to Redis names its connection
// timeout --timeout; latch also takes its old --conn-timeout, and the old
// "await --timeout D" still means --wait D.
func TestTimeoutFlag(t *testing.T) {
	t.Parallel()
	for _, c := range []string{"run", "ls", "inspect", "get", "latch", "semaphore", "permits", "ratelimit", "unlock", "demo"} {
		r := cli(t, 30*time.Second, c, "--help")
		if r.code != 0 || !strings.Contains(r.stdout, "\n  --timeout duration\n        duration of connect and command timeouts") ||
			strings.Contains(r.stdout, "\n  --conn-timeout") {
			t.Errorf("redisson %s --help: want --timeout as the connection timeout, no --conn-timeout:\n%v", c, r)
		}
	}
	url, rdb := server(t)
	ctx := context.Background()
	for _, args := range [][]string{
		{"--timeout", "5s", "t", "set", "2"},
		{"--conn-timeout", "5s", "t", "down"},
		{"t", "down", "--timeout", "5s"},
	} {
		if r := cli(t, 30*time.Second, append([]string{"latch", "--redis", url}, args...)...); r.code != 0 || r.stderr != "" {
			t.Errorf("latch %v:\n%v", args, r)
		}
	}
	if n, err := rdb.Exists(ctx, "t").Result(); err != nil || n != 0 {
		t.Errorf("latch t not counted down to zero: %d %v", n, err)
	}
	if err := rdb.Set(ctx, "armed", "1", 0).Err(); err != nil {
		t.Fatal(err)
	}
	r := cli(t, 30*time.Second, "latch", "--redis", url, "armed", "await", "--wait", "200ms", "--timeout", "5s")
	if r.code != cliflag.ExitNotAcq || !strings.Contains(r.stderr, "within 200ms") {
		t.Errorf("await --wait 200ms --timeout 5s:\n%v", r)
	}
	r = cli(t, 30*time.Second, "latch", "--redis", url, "armed", "await", "--timeout", "200ms")
	if r.code != cliflag.ExitNotAcq || !strings.Contains(r.stderr, "warning") || !strings.Contains(r.stderr, "within 200ms") {
		t.Errorf("old form await --timeout 200ms: want it read as --wait, with a warning:\n%v", r)
	}
	r = cli(t, 30*time.Second, "latch", "--redis", url, "armed", "down", "--wait", "1s")
	if r.code != cliflag.ExitUsage || !strings.Contains(r.stderr, "--wait goes with await") {
		t.Errorf("down --wait:\n%v", r)
	}
}
