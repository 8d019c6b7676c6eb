package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/cli/cliflag"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/rlock"
)

// raceEnabled is set by race_test.go; the CLI under test is then built with
// -race too.
var raceEnabled bool

// binPath is the redisson binary built by TestMain.
var binPath string

func TestMain(m *testing.M) {
	os.Exit(testMain(m))
}

func testMain(m *testing.M) int {
	if addr := os.Getenv(goneWorkerEnv); addr != "" {
		return goneWorker(addr)
	}
	dir, err := os.MkdirTemp("", "redisson-cli-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	binPath = filepath.Join(dir, "redisson")
	// go test puts its own GOROOT/bin first on PATH.
	goBin, err := exec.LookPath("go")
	if err != nil {
		fmt.Fprintln(os.Stderr, "cannot find the go command to build the CLI:", err)
		return 1
	}
	args := []string{"build", "-o", binPath}
	if raceEnabled {
		args = append(args, "-race")
	}
	out, err := exec.Command(goBin, append(args, ".")...).CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "go build of the CLI failed: %v\n%s", err, out)
		return 1
	}
	return m.Run()
}

// result is how a CLI process ended.
type result struct {
	code           int
	stdout, stderr string
	elapsed        time.Duration
}

func (r result) String() string {
	return fmt.Sprintf("exit %d after %v\nstdout:\n%s\nstderr:\n%s", r.code, r.elapsed, r.stdout, r.stderr)
}

// cliEnv is the environment of CLI processes: the test's, without REDIS_URL,
// plus extra.
func cliEnv(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "REDIS_URL=") {
			env = append(env, kv)
		}
	}
	return append(env, extra...)
}

// command returns an unstarted CLI process with captured output.
func cliCommand(t *testing.T, args ...string) (*exec.Cmd, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	cmd := exec.Command(binPath, args...)
	cmd.Env = cliEnv()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	return cmd, &stdout, &stderr
}

// wait waits for a started CLI process, failing the test after timeout.
func wait(t *testing.T, cmd *exec.Cmd, stdout, stderr *bytes.Buffer, start time.Time, timeout time.Duration) result {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(timeout):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("%v did not end within %v\nstdout:\n%s\nstderr:\n%s", cmd.Args, timeout, stdout, stderr)
	}
	return result{code: cmd.ProcessState.ExitCode(), stdout: stdout.String(), stderr: stderr.String(), elapsed: time.Since(start)}
}

// cli runs the CLI to its end (at most timeout).
func cli(t *testing.T, timeout time.Duration, args ...string) result {
	t.Helper()
	cmd, stdout, stderr := cliCommand(t, args...)
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return wait(t, cmd, stdout, stderr, start, timeout)
}

// waitFor polls cond until it reports true, failing the test after timeout
// with cond's last description.
func waitFor(t *testing.T, timeout time.Duration, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		ok, desc := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s (last: %s)", timeout, what, desc)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// server starts a redis-server for the test and returns its URL and a client.
func server(t *testing.T) (string, *redis.Client) {
	t.Helper()
	s := redistest.StartServer(t)
	return "redis://" + s.Addr(), redistest.Client(t, s)
}

// holdLock takes name through the library and returns the holder's context
// and client.
func holdLock(t *testing.T, rdb redis.UniversalClient, name string) (*rlock.Hold, *redisson.Client) {
	t.Helper()
	client, err := redisson.New(rdb)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	h, err := client.Lock(name).Lock(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return h, client
}

func numSub(t *testing.T, rdb redis.UniversalClient, channel string) int64 {
	t.Helper()
	m, err := rdb.PubSubNumSub(context.Background(), channel).Result()
	if err != nil {
		t.Fatal(err)
	}
	return m[channel]
}

func TestHelp(t *testing.T) {
	t.Parallel()
	r := cli(t, 30*time.Second, "--help")
	if r.code != 0 || !strings.Contains(r.stdout, "Exit codes:") || !strings.Contains(r.stdout, "Examples:") {
		t.Fatalf("redisson --help:\n%v", r)
	}
	for _, c := range []string{"run", "inspect", "unlock", "demo"} {
		r := cli(t, 30*time.Second, c, "--help")
		if r.code != 0 || !strings.Contains(r.stdout, "Examples:") || !strings.Contains(r.stdout, "--redis URL") ||
			!strings.Contains(r.stdout, "--timeout") {
			t.Errorf("redisson %s --help:\n%v", c, r)
		}
		if h := cli(t, 30*time.Second, "help", c); h.code != 0 || h.stdout != r.stdout {
			t.Errorf("redisson help %s differs from --help:\n%v", c, h)
		}
	}
	if r := cli(t, 30*time.Second, "run", "--help"); !strings.Contains(r.stdout, "--watchdog") ||
		!strings.Contains(r.stdout, "75") || !strings.Contains(r.stdout, "76") {
		t.Errorf("run --help lacks --watchdog or the exit codes:\n%v", r)
	}
	// The help speaks of the hold API: a Hold has the owner, no context does.
	for _, c := range []string{"run", "unlock", "demo"} {
		r := cli(t, 30*time.Second, c, "--help")
		if strings.Contains(r.stdout, "context") {
			t.Errorf("redisson %s --help speaks of a context:\n%s", c, r.stdout)
		}
		if c != "unlock" && !strings.Contains(r.stdout, "leave it out for the watchdog") {
			t.Errorf("redisson %s --help does not say how --lease and the watchdog go:\n%s", c, r.stdout)
		}
	}
	if r := cli(t, 30*time.Second, "frobnicate"); r.code != cliflag.ExitUsage {
		t.Errorf("unknown command: %v", r)
	}
	if r := cli(t, 30*time.Second); r.code != cliflag.ExitUsage {
		t.Errorf("no command: %v", r)
	}
	if r := cli(t, 30*time.Second, "run", "--lock", "x"); r.code != cliflag.ExitUsage {
		t.Errorf("run without a command: %v", r)
	}
	if r := cli(t, 30*time.Second, "run", "--bogus"); r.code != cliflag.ExitUsage {
		t.Errorf("run --bogus: %v", r)
	}
	if r := cli(t, 30*time.Second, "inspect"); r.code != cliflag.ExitUsage {
		t.Errorf("inspect without NAME: %v", r)
	}
	// Two addresses without --cluster are a usage error, caught before any
	// connection.
	if r := cli(t, 30*time.Second, "inspect", "--redis", "redis://127.0.0.1:1,redis://127.0.0.1:2", "x"); r.code != cliflag.ExitUsage {
		t.Errorf("two addresses without --cluster: %v", r)
	}
}
