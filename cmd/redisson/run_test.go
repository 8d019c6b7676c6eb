package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/goredisson/redisson/internal/cli/cliflag"
	"github.com/goredisson/redisson/keys"
)

// TestRunMutualExclusion: two sequences of run processes on one lock, 25
// rounds each, each CMD appending its start and end to a shared file: no
// two critical sections overlap.
func TestRunMutualExclusion(t *testing.T) {
	t.Parallel()
	url, rdb := server(t)
	file := filepath.Join(t.TempDir(), "sections")
	const rounds = 25
	script := `echo "start $1 $(date +%s%N)" >> "$2"; sleep 0.01; echo "end $1 $(date +%s%N)" >> "$2"`
	var wg sync.WaitGroup
	errs := make(chan string, 2*rounds)
	for p := range 2 {
		wg.Go(func() {
			for i := range rounds {
				id := fmt.Sprintf("p%d-%d", p, i)
				r := cli(t, 60*time.Second, "run", "--redis", url, "--lock", "excl", "--", "sh", "-c", script, "sh", id, file)
				if r.code != 0 {
					errs <- fmt.Sprintf("%s: %v", id, r)
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

	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	type interval struct {
		id         string
		start, end int64
	}
	byID := map[string]*interval{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		f := strings.Fields(line)
		if len(f) != 3 {
			t.Fatalf("bad line %q", line)
		}
		ns, err := strconv.ParseInt(f[2], 10, 64)
		if err != nil {
			t.Fatalf("bad time in %q (is date +%%N supported?)", line)
		}
		iv := byID[f[1]]
		if iv == nil {
			iv = &interval{id: f[1]}
			byID[f[1]] = iv
		}
		switch f[0] {
		case "start":
			iv.start = ns
		case "end":
			iv.end = ns
		}
	}
	if len(byID) != 2*rounds {
		t.Fatalf("%d critical sections recorded, want %d", len(byID), 2*rounds)
	}
	var ivs []*interval
	for _, iv := range byID {
		if iv.start == 0 || iv.end < iv.start {
			t.Fatalf("incomplete section %+v", *iv)
		}
		ivs = append(ivs, iv)
	}
	sort.Slice(ivs, func(i, j int) bool { return ivs[i].start < ivs[j].start })
	for i := 1; i < len(ivs); i++ {
		if ivs[i].start < ivs[i-1].end {
			t.Errorf("%s [%d, %d] overlaps %s [%d, %d]", ivs[i].id, ivs[i].start, ivs[i].end,
				ivs[i-1].id, ivs[i-1].start, ivs[i-1].end)
		}
	}
	if n, _ := rdb.Exists(context.Background(), "excl").Result(); n != 0 {
		t.Errorf("the lock is still there after all runs")
	}
}

func TestRunNotAcquired(t *testing.T) {
	t.Parallel()
	url, rdb := server(t)
	holdLock(t, rdb, "busy")
	marker := filepath.Join(t.TempDir(), "ran")

	r := cli(t, 30*time.Second, "run", "--redis", url, "--lock", "busy", "--wait", "0", "--", "touch", marker)
	if r.code != cliflag.ExitNotAcq || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 || !strings.Contains(r.stderr, "busy") {
		t.Fatalf("--wait 0 on a held lock: want exit 75 and one line on stderr:\n%v", r)
	}
	r = cli(t, 30*time.Second, "run", "--redis", url, "--lock", "busy", "--wait", "200ms", "--", "touch", marker)
	if r.code != cliflag.ExitNotAcq || !strings.Contains(r.stderr, "not acquired within 200ms") {
		t.Fatalf("--wait 200ms on a held lock: want exit 75:\n%v", r)
	}
	if r.elapsed < 200*time.Millisecond {
		t.Errorf("--wait 200ms gave up after %v", r.elapsed)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("CMD ran without the lock")
	}
}

// TestRunLockLost: the lock's key is deleted while CMD runs: run notices at
// the next watchdog renewal, sends CMD SIGTERM, waits for it and exits 76.
func TestRunLockLost(t *testing.T) {
	t.Parallel()
	url, rdb := server(t)
	dir := t.TempDir()
	started, term := filepath.Join(dir, "started"), filepath.Join(dir, "term")
	script := `trap 'echo term > "$2"; kill $pid 2>/dev/null; exit 0' TERM
echo started > "$1"
sleep 60 >/dev/null 2>&1 &
pid=$!
wait $pid`
	cmd, stdout, stderr := cliCommand(t, "run", "--redis", url, "--lock", "lost", "--watchdog", "1s", "--",
		"sh", "-c", script, "sh", started, term)
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, "CMD to start", func() (bool, string) {
		_, err := os.Stat(started)
		return err == nil, fmt.Sprint(err)
	})
	if n, err := rdb.Del(context.Background(), "lost").Result(); err != nil || n != 1 {
		t.Fatalf("DEL lost: %d %v", n, err)
	}
	r := wait(t, cmd, stdout, stderr, start, 30*time.Second)
	if r.code != cliflag.ExitLockLost || !strings.HasPrefix(r.stderr, `redisson run: lock "lost" lost while the command was running: `) ||
		!strings.HasSuffix(r.stderr, "; sending the command SIGTERM\n") {
		t.Fatalf("want exit 76 after the key was deleted, and one line saying so:\n%v", r)
	}
	// Said once: the lock's name, and that it was lost.
	if strings.Count(r.stderr, `"lost"`) != 1 || strings.Contains(r.stderr, "ownership lost") {
		t.Errorf("the message repeats itself:\n%s", r.stderr)
	}
	b, err := os.ReadFile(term)
	if err != nil || strings.TrimSpace(string(b)) != "term" {
		t.Fatalf("CMD did not get SIGTERM: %q %v\n%v", b, err, r)
	}
}

func TestRunExitCodes(t *testing.T) {
	t.Parallel()
	url, rdb := server(t)
	for _, tc := range []struct {
		args []string
		want int
	}{
		{[]string{"sh", "-c", "exit 7"}, 7},
		{[]string{"true"}, 0},
		{[]string{"sh", "-c", "kill -TERM $$"}, 128 + int(syscall.SIGTERM)},
		{[]string{"/nonexistent/redisson-test-cmd"}, cliflag.ExitNotFound},
	} {
		args := append([]string{"run", "--redis", url, "--lock", "codes", "--"}, tc.args...)
		r := cli(t, 30*time.Second, args...)
		if r.code != tc.want {
			t.Errorf("%v: want exit %d:\n%v", tc.args, tc.want, r)
		}
		if n, _ := rdb.Exists(context.Background(), "codes").Result(); n != 0 {
			t.Errorf("%v: the lock was not released", tc.args)
		}
	}
	// Stdin and stdout pass through.
	cmd, stdout, stderr := cliCommand(t, "run", "--redis", url, "--lock", "codes", "--lease", "10s", "--", "cat")
	cmd.Stdin = strings.NewReader("hello through the lock\n")
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if r := wait(t, cmd, stdout, stderr, start, 30*time.Second); r.code != 0 || r.stdout != "hello through the lock\n" {
		t.Errorf("cat under the lock:\n%v", r)
	}
}

// TestRunSignals: SIGINT while waiting stops the wait (130); SIGINT while
// CMD runs is forwarded to CMD, and the lock is released after CMD exits.
func TestRunSignals(t *testing.T) {
	t.Parallel()
	url, rdb := server(t)
	ctx := context.Background()
	hold, _ := holdLock(t, rdb, "sig")

	cmd, stdout, stderr := cliCommand(t, "run", "--redis", url, "--lock", "sig", "--", "true")
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, "run to wait on the lock's channel", func() (bool, string) {
		n := numSub(t, rdb, keys.LockChannel("sig"))
		return n >= 1, fmt.Sprintf("%d subscribers", n)
	})
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	if r := wait(t, cmd, stdout, stderr, start, 30*time.Second); r.code != 130 {
		t.Fatalf("SIGINT while waiting: want exit 130:\n%v", r)
	}
	if err := hold.Unlock(t.Context()); err != nil {
		t.Fatal(err)
	}

	dir := t.TempDir()
	started, got := filepath.Join(dir, "started"), filepath.Join(dir, "got")
	script := `trap 'echo int > "$2"; kill $pid 2>/dev/null; exit 3' INT
echo started > "$1"
sleep 60 >/dev/null 2>&1 &
pid=$!
wait $pid`
	cmd, stdout, stderr = cliCommand(t, "run", "--redis", url, "--lock", "sig", "--", "sh", "-c", script, "sh", started, got)
	start = time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, "CMD to start", func() (bool, string) {
		_, err := os.Stat(started)
		return err == nil, fmt.Sprint(err)
	})
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	r := wait(t, cmd, stdout, stderr, start, 30*time.Second)
	if r.code != 3 {
		t.Fatalf("SIGINT forwarded to CMD, which exits 3: got\n%v", r)
	}
	if b, _ := os.ReadFile(got); strings.TrimSpace(string(b)) != "int" {
		t.Errorf("CMD did not get SIGINT")
	}
	if n, _ := rdb.Exists(ctx, "sig").Result(); n != 0 {
		t.Errorf("the lock was not released after CMD exited")
	}
}

// TestRunLease: with a fixed lease the lock ends with it; a CMD outliving
// the lease is stopped (76).
func TestRunLease(t *testing.T) {
	t.Parallel()
	url, _ := server(t)
	r := cli(t, 30*time.Second, "run", "--redis", url, "--lock", "lease", "--lease", "300ms", "--", "sleep", "20")
	if r.code != cliflag.ExitLockLost || r.elapsed > 15*time.Second {
		t.Fatalf("CMD outliving --lease 300ms: want exit 76 soon:\n%v", r)
	}
	if !strings.HasPrefix(r.stderr, `redisson run: lock "lease" lost while the command was running: `) ||
		strings.Count(r.stderr, `"lease"`) != 1 || strings.Count(r.stderr, "\n") != 1 {
		t.Errorf("want one line saying the lock was lost:\n%v", r)
	}
}

// TestRunWrongType: NAME holds something else than a lock: exit 1 and one
// line saying what is in the way, naming the lock once; CMD does not run.
func TestRunWrongType(t *testing.T) {
	t.Parallel()
	url, rdb := server(t)
	if err := rdb.Set(context.Background(), "text", "hello", 0).Err(); err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(t.TempDir(), "ran")
	for _, wait := range [][]string{nil, {"--wait", "0"}, {"--wait", "1s"}} {
		args := append(append([]string{"run", "--redis", url, "--lock", "text"}, wait...), "--", "touch", marker)
		r := cli(t, 30*time.Second, args...)
		if r.code != cliflag.ExitError || !strings.HasPrefix(r.stderr, `redisson run: lock "text": `) ||
			strings.Count(r.stderr, "\n") != 1 || strings.Count(r.stderr, `"text"`) != 1 ||
			!strings.Contains(r.stderr, "wrong type") || !strings.Contains(r.stderr, "string") ||
			!strings.HasSuffix(r.stderr, ` ("redisson inspect text" shows what it is)`+"\n") ||
			strings.Contains(r.stderr, "script") {
			t.Errorf("run %v on a string key: want exit 1 and one line saying what the key holds:\n%v", wait, r)
		}
	}
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("CMD ran without the lock")
	}
}
