package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/goredisson/redisson/internal/cli/cliflag"
	"github.com/goredisson/redisson/keys"
)

// holderScript touches $1, then waits until $2 exists.
const holderScript = `touch "$1"; while [ ! -e "$2" ]; do sleep 0.01; done`

// startHolder starts "run ARGS -- sh -c holderScript" and waits until CMD
// runs; release ends CMD, and returns run's result.
func startHolder(t *testing.T, args ...string) (release func() result) {
	t.Helper()
	dir := t.TempDir()
	started, done := filepath.Join(dir, "started"), filepath.Join(dir, "done")
	cmd, stdout, stderr := cliCommand(t, append(args, "--", "sh", "-c", holderScript, "sh", started, done)...)
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, fmt.Sprintf("holder %v to run CMD", args), func() (bool, string) {
		_, err := os.Stat(started)
		return err == nil, fmt.Sprint(err)
	})
	return func() result {
		if err := os.WriteFile(done, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		return wait(t, cmd, stdout, stderr, start, 30*time.Second)
	}
}

// TestRunLockKinds: for each kind, a second run conflicting with a holder
// gets exit 75 (--wait 0 and --wait D); readers share; after the holder
// ends, nothing is left in Redis.
func TestRunLockKinds(t *testing.T) {
	t.Parallel()
	url, rdb := server(t)
	ctx := context.Background()
	for i, tc := range []struct {
		holder, other []string
		want          int
	}{
		{[]string{}, []string{}, cliflag.ExitNotAcq},
		{[]string{"--fair"}, []string{"--fair"}, cliflag.ExitNotAcq},
		{[]string{"--write"}, []string{"--write"}, cliflag.ExitNotAcq},
		{[]string{"--write"}, []string{"--read"}, cliflag.ExitNotAcq},
		{[]string{"--read"}, []string{"--write"}, cliflag.ExitNotAcq},
		{[]string{"--read"}, []string{"--read"}, 0},
	} {
		name := fmt.Sprintf("kind%d", i)
		desc := fmt.Sprintf("holder %v, other %v", tc.holder, tc.other)
		release := startHolder(t, append([]string{"run", "--redis", url, "--lock", name}, tc.holder...)...)
		for _, w := range []string{"0", "200ms"} {
			args := append([]string{"run", "--redis", url, "--lock", name, "--wait", w}, tc.other...)
			r := cli(t, 30*time.Second, append(args, "--", "true")...)
			if r.code != tc.want {
				t.Errorf("%s, --wait %s: want exit %d:\n%v", desc, w, tc.want, r)
			}
			if tc.want == cliflag.ExitNotAcq && (!strings.Contains(r.stderr, fmt.Sprintf("%q", name)) ||
				strings.Count(strings.TrimSpace(r.stderr), "\n") != 0) {
				t.Errorf("%s: want one line naming the lock:\n%v", desc, r)
			}
		}
		if r := release(); r.code != 0 {
			t.Errorf("%s: holder:\n%v", desc, r)
		}
		keys, err := rdb.Keys(ctx, "*").Result()
		if err != nil {
			t.Fatal(err)
		}
		var left []string
		for _, k := range keys {
			if !strings.HasPrefix(k, "redisson_unlock_latch:") { // lives 20 s after each unlock
				left = append(left, k)
			}
		}
		if len(left) != 0 {
			t.Errorf("%s: keys left after both runs: %v", desc, left)
		}
	}
}

// TestRunFairLockWaits: a waiting fair-lock run queues, then gets the lock
// when the holder ends; the queue is empty afterwards.
func TestRunFairLockWaits(t *testing.T) {
	t.Parallel()
	url, rdb := server(t)
	ctx := context.Background()
	release := startHolder(t, "run", "--redis", url, "--lock", "fq", "--fair")
	marker := filepath.Join(t.TempDir(), "ran")
	cmd, stdout, stderr := cliCommand(t, "run", "--redis", url, "--lock", "fq", "--fair", "--", "touch", marker)
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, "the waiter in the fair queue", func() (bool, string) {
		n, err := rdb.LLen(ctx, keys.FairLockQueue("fq")).Result()
		return n == 1, fmt.Sprint(n, err)
	})
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the waiter ran while the lock was held")
	}
	if r := release(); r.code != 0 {
		t.Fatalf("holder:\n%v", r)
	}
	if r := wait(t, cmd, stdout, stderr, start, 30*time.Second); r.code != 0 {
		t.Fatalf("waiter:\n%v", r)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Errorf("the waiter's CMD did not run: %v", err)
	}
	if n, _ := rdb.Exists(ctx, "fq", keys.FairLockQueue("fq"), keys.FairLockTimeout("fq")).Result(); n != 0 {
		t.Errorf("%d fair-lock keys left", n)
	}
}

// TestRunSemaphoreExclusion: two sequences of run --semaphore --permits 1
// never overlap. The gauge is a directory each CMD creates and removes:
// mkdir fails when another CMD is inside.
func TestRunSemaphoreExclusion(t *testing.T) {
	t.Parallel()
	url, rdb := server(t)
	dir := t.TempDir()
	gauge, overlaps, count := filepath.Join(dir, "gauge"), filepath.Join(dir, "overlaps"), filepath.Join(dir, "count")
	script := `if mkdir "$1" 2>/dev/null; then echo x >> "$3"; sleep 0.01; rmdir "$1"; else echo overlap >> "$2"; fi`
	const rounds = 20
	var wg sync.WaitGroup
	errs := make(chan string, 2*rounds)
	for p := range 2 {
		wg.Go(func() {
			for i := range rounds {
				r := cli(t, 60*time.Second, "run", "--redis", url, "--semaphore", "sem", "--permits", "1", "--",
					"sh", "-c", script, "sh", gauge, overlaps, count)
				if r.code != 0 {
					errs <- fmt.Sprintf("p%d-%d: %v", p, i, r)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatal(e)
	}
	if b, err := os.ReadFile(overlaps); err == nil {
		t.Errorf("%d overlapping runs", strings.Count(string(b), "overlap"))
	}
	if b, err := os.ReadFile(count); err != nil || strings.Count(string(b), "x") != 2*rounds {
		t.Errorf("want %d runs counted: %q %v", 2*rounds, b, err)
	}
	if v, err := rdb.Get(context.Background(), "sem").Result(); err != nil || v != "1" {
		t.Errorf("permits after the runs: %q %v, want 1", v, err)
	}
}

// TestRunSemaphoreCodes: the permit comes back however CMD ends; no permit
// within --wait is exit 75; an existing semaphore keeps its count.
func TestRunSemaphoreCodes(t *testing.T) {
	t.Parallel()
	url, rdb := server(t)
	ctx := context.Background()
	for _, tc := range []struct {
		args []string
		want int
	}{
		{[]string{"true"}, 0},
		{[]string{"sh", "-c", "exit 7"}, 7},
		{[]string{"sh", "-c", "kill -TERM $$"}, 128 + int(syscall.SIGTERM)},
		{[]string{"/nonexistent/redisson-test-cmd"}, cliflag.ExitNotFound},
	} {
		r := cli(t, 30*time.Second, append([]string{"run", "--redis", url, "--semaphore", "codes", "--permits", "2", "--"}, tc.args...)...)
		if r.code != tc.want {
			t.Errorf("%v: want exit %d:\n%v", tc.args, tc.want, r)
		}
		if v, err := rdb.Get(ctx, "codes").Result(); err != nil || v != "2" {
			t.Errorf("%v: permits after: %q %v, want 2", tc.args, v, err)
		}
	}

	// No permit left: 75, CMD does not run, the count is unchanged.
	if err := rdb.Set(ctx, "full", "0", 0).Err(); err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(t.TempDir(), "ran")
	for _, w := range []string{"0", "200ms"} {
		r := cli(t, 30*time.Second, "run", "--redis", url, "--semaphore", "full", "--permits", "3", "--wait", w, "--", "touch", marker)
		if r.code != cliflag.ExitNotAcq || !strings.Contains(r.stderr, `semaphore "full"`) {
			t.Errorf("--wait %s on an empty semaphore: want exit 75:\n%v", w, r)
		}
	}
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("CMD ran without a permit")
	}
	if v, _ := rdb.Get(ctx, "full").Result(); v != "0" {
		t.Errorf("permits of the existing semaphore changed to %q", v)
	}

	// SIGINT while waiting for a permit: 130, nothing taken.
	cmd, stdout, stderr := cliCommand(t, "run", "--redis", url, "--semaphore", "full", "--permits", "1", "--", "touch", marker)
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, "run to wait on the semaphore's channel", func() (bool, string) {
		n := numSub(t, rdb, keys.SemaphoreChannel("full"))
		return n > 0, fmt.Sprint(n)
	})
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	if r := wait(t, cmd, stdout, stderr, start, 30*time.Second); r.code != cliflag.ExitSignalBase+int(syscall.SIGINT) {
		t.Errorf("SIGINT while waiting for a permit: want 130:\n%v", r)
	}
	if v, _ := rdb.Get(ctx, "full").Result(); v != "0" {
		t.Errorf("permits changed to %q", v)
	}
}

func TestRunKindUsage(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--lock", "x", "--fair", "--read"}, "mutually exclusive"},
		{[]string{"--lock", "x", "--read", "--write"}, "mutually exclusive"},
		{[]string{"--lock", "x", "--semaphore", "y", "--permits", "1"}, "--lock and --semaphore are mutually exclusive"},
		{[]string{"--semaphore", "y"}, "--permits"},
		{[]string{"--semaphore", "y", "--permits", "0"}, "--permits"},
		{[]string{"--semaphore", "y", "--permits", "1", "--fair"}, "go with --lock"},
		{[]string{"--semaphore", "y", "--permits", "1", "--lease", "1s"}, "--lease"},
		{[]string{"--lock", "x", "--permits", "1"}, "--permits goes with --semaphore"},
	} {
		r := cli(t, 30*time.Second, append(append([]string{"run", "--redis", "redis://127.0.0.1:1"}, tc.args...), "--", "true")...)
		if r.code != cliflag.ExitUsage || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%v: want exit 2 and %q:\n%v", tc.args, tc.want, r)
		}
	}
}
