package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson/internal/cli/cliflag"
	"github.com/goredisson/redisson/internal/cli/run"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/internal/registry"
)

// allKeys returns the sorted keys of rdb but the unlock latches (which live
// 20 s after each unlock).
func allKeys(t *testing.T, rdb *redis.Client) []string {
	t.Helper()
	ks, err := rdb.Keys(context.Background(), "*").Result()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, k := range ks {
		if !strings.HasPrefix(k, "redisson_unlock_latch:") {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// TestRunMultiLock: run --lock a --lock b holds both while CMD runs (for
// each kind); a run wanting one of them gets exit 75 (readers share);
// nothing is left after.
func TestRunMultiLock(t *testing.T) {
	t.Parallel()
	url, rdb := server(t)
	for i, tc := range []struct {
		kind  []string
		other []string
		want  int
	}{
		{nil, nil, cliflag.ExitNotAcq},
		{[]string{"--fair"}, []string{"--fair"}, cliflag.ExitNotAcq},
		{[]string{"--write"}, []string{"--read"}, cliflag.ExitNotAcq},
		{[]string{"--read"}, []string{"--write"}, cliflag.ExitNotAcq},
		{[]string{"--read"}, []string{"--read"}, 0},
	} {
		a, b, c := fmt.Sprintf("ma%d", i), fmt.Sprintf("mb%d", i), fmt.Sprintf("mc%d", i)
		desc := fmt.Sprintf("holder %v, other %v", tc.kind, tc.other)
		release := startHolder(t, append([]string{"run", "--redis", url, "--lock", a, "--lock", b}, tc.kind...)...)
		for _, name := range []string{a, b} {
			if n := rdb.Exists(context.Background(), name).Val(); n != 1 {
				t.Errorf("%s: member %q not in Redis while CMD runs", desc, name)
			}
		}
		// Another set overlapping in b, in the other order.
		args := append([]string{"run", "--redis", url, "--lock", c, "--lock", b, "--wait", "0"}, tc.other...)
		r := cli(t, 30*time.Second, append(args, "--", "true")...)
		if r.code != tc.want {
			t.Errorf("%s: want exit %d:\n%v", desc, tc.want, r)
		}
		if tc.want == cliflag.ExitNotAcq {
			if !strings.Contains(r.stderr, fmt.Sprintf("%q, %q", c, b)) || !strings.Contains(r.stderr, "none is kept") ||
				strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 {
				t.Errorf("%s: want one line naming the set:\n%v", desc, r)
			}
			if n := rdb.Exists(context.Background(), c).Val(); n != 0 {
				t.Errorf("%s: %q left locked by a run that got exit 75", desc, c)
			}
		}
		if r := release(); r.code != 0 {
			t.Errorf("%s: holder:\n%v", desc, r)
		}
		if ks := allKeys(t, rdb); len(ks) != 0 {
			t.Errorf("%s: keys left after both runs: %v", desc, ks)
		}
	}
}

// TestRunMultiLockAllOrNone: one lock of the set is held by someone else:
// run gets exit 75, CMD does not run, and no member is left locked, also
// after waiting (the fair lock's abandoned wait leaves no queue entry).
func TestRunMultiLockAllOrNone(t *testing.T) {
	t.Parallel()
	url, rdb := server(t)
	ctx := context.Background()
	marker := filepath.Join(t.TempDir(), "ran")

	_, holder := holdLock(t, rdb, "n2")
	// The other owner's lock, and its client's registration record (run's
	// own record is gone when it exits).
	want := strings.Join([]string{"n2", registry.Key(holder.ID())}, " ")
	for _, w := range []string{"0", "300ms"} {
		r := cli(t, 30*time.Second, "run", "--redis", url, "--lock", "n1", "--lock", "n2", "--lock", "n3", "--wait", w, "--", "touch", marker)
		if r.code != cliflag.ExitNotAcq {
			t.Fatalf("--wait %s with n2 held: want exit 75:\n%v", w, r)
		}
		if ks := strings.Join(allKeys(t, rdb), " "); ks != want {
			t.Errorf("--wait %s: keys after exit 75: %v, want only the other owner's n2 and its client's record", w, ks)
		}
	}
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("CMD ran without every lock of the set")
	}

	release := startHolder(t, "run", "--redis", url, "--fair", "--lock", "f2")
	r := cli(t, 30*time.Second, "run", "--redis", url, "--fair", "--lock", "f1", "--lock", "f2", "--wait", "300ms", "--", "touch", marker)
	if r.code != cliflag.ExitNotAcq {
		t.Fatalf("fair set with f2 held: want exit 75:\n%v", r)
	}
	if n := rdb.Exists(ctx, "f1").Val(); n != 0 {
		t.Errorf("f1 left locked")
	}
	if n := rdb.LLen(ctx, "redisson_lock_queue:{f2}").Val(); n != 0 {
		t.Errorf("f2's queue has %d entries after the wait ended", n)
	}
	if r := release(); r.code != 0 {
		t.Errorf("holder:\n%v", r)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("CMD ran without every lock of the set")
	}
}

// TestRunMultiLockLost: a member's key deleted while CMD runs: run sends
// CMD SIGTERM and exits 76, naming the member; the other member is
// released.
func TestRunMultiLockLost(t *testing.T) {
	t.Parallel()
	url, rdb := server(t)
	dir := t.TempDir()
	started, term := filepath.Join(dir, "started"), filepath.Join(dir, "term")
	script := `trap 'echo term > "$2"; kill $pid 2>/dev/null; exit 0' TERM
echo started > "$1"
sleep 60 >/dev/null 2>&1 &
pid=$!
wait $pid`
	cmd, stdout, stderr := cliCommand(t, "run", "--redis", url, "--lock", "la", "--lock", "lb", "--watchdog", "1s", "--",
		"sh", "-c", script, "sh", started, term)
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, "CMD to start", func() (bool, string) {
		_, err := os.Stat(started)
		return err == nil, fmt.Sprint(err)
	})
	if n, err := rdb.Del(context.Background(), "lb").Result(); err != nil || n != 1 {
		t.Fatalf("DEL lb: %d %v", n, err)
	}
	r := wait(t, cmd, stdout, stderr, start, 30*time.Second)
	if r.code != cliflag.ExitLockLost || !strings.HasPrefix(r.stderr, `redisson run: multi-lock of locks "la", "lb" lost while the command was running: `) ||
		!strings.Contains(r.stderr, `"lb"`) {
		t.Fatalf("want exit 76 naming the lost member:\n%v", r)
	}
	if _, err := os.Stat(term); err != nil {
		t.Errorf("CMD did not get SIGTERM")
	}
	if ks := allKeys(t, rdb); len(ks) != 0 {
		t.Errorf("keys left: %v", ks)
	}
}

// TestRunFenced: CMD sees the fenced lock's token in
// $REDISSON_FENCING_TOKEN (an inherited value replaced), larger on every
// run; inspect shows the last one.
func TestRunFenced(t *testing.T) {
	t.Parallel()
	url, rdb := server(t)
	out := filepath.Join(t.TempDir(), "tokens")
	var last int64
	for i := range 3 {
		r := cliEnvRun(t, []string{run.FencingTokenEnv + "=999"}, "run", "--redis", url, "--fenced", "--lock", "ledger", "--",
			"sh", "-c", `echo "$`+run.FencingTokenEnv+`" >> "$1"; env | grep -c '^`+run.FencingTokenEnv+`=' >> "$1"`, "sh", out)
		if r.code != 0 {
			t.Fatalf("run %d:\n%v", i, r)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Fields(string(b))
		if len(lines) != 2*(i+1) || lines[2*i+1] != "1" {
			t.Fatalf("run %d: CMD wrote %q, want its token and one %s entry per run", i, lines, run.FencingTokenEnv)
		}
		tok, err := strconv.ParseInt(lines[2*i], 10, 64)
		if err != nil || tok <= last || tok == 999 {
			t.Fatalf("run %d: token %q after %d: want a larger number, not the inherited 999", i, lines[2*i], last)
		}
		last = tok
	}
	if v := rdb.Get(context.Background(), "redisson_lock_token:{ledger}").Val(); v != strconv.FormatInt(last, 10) {
		t.Errorf("token key %q, want %d", v, last)
	}
	if n := rdb.Exists(context.Background(), "ledger").Val(); n != 0 {
		t.Errorf("the fenced lock is still held after the runs")
	}

	// A held fenced lock: a second run gets exit 75; inspect shows the
	// holder and the token.
	release := startHolder(t, "run", "--redis", url, "--fenced", "--lock", "ledger")
	r := cli(t, 30*time.Second, "run", "--redis", url, "--fenced", "--lock", "ledger", "--wait", "0", "--", "true")
	if r.code != cliflag.ExitNotAcq || !strings.Contains(r.stderr, `fenced lock "ledger" is held by another owner`) {
		t.Errorf("second run on a held fenced lock: want exit 75:\n%v", r)
	}
	r = cli(t, 30*time.Second, "inspect", "--redis", url, "ledger")
	if r.code != 0 || !strings.Contains(r.stdout, fmt.Sprintf("%d (fenced lock's last token)", last+1)) {
		t.Errorf("inspect of the held fenced lock: want token %d:\n%v", last+1, r)
	}
	if r := release(); r.code != 0 {
		t.Errorf("holder:\n%v", r)
	}
}

// TestRunRedLock: --redlock over 3 servers takes the lock on all of them
// while CMD runs; a second RedLock gets exit 75; with one server stopped
// CMD still runs (a warning names the server), with two it does not.
func TestRunRedLock(t *testing.T) {
	t.Parallel()
	servers := redistest.StartMasters(t, 3)
	var args []string
	var raws []*redis.Client
	for _, s := range servers {
		args = append(args, "--redis", "redis://"+s.Addr())
		raws = append(raws, redistest.Client(t, s))
	}
	redArgs := func(extra ...string) []string {
		return append(append([]string{"run", "--redlock"}, args...), extra...)
	}
	held := func(skip int) int {
		n := 0
		for i, r := range raws {
			if i != skip && r.Exists(context.Background(), "red").Val() == 1 {
				n++
			}
		}
		return n
	}

	release := startHolder(t, redArgs("--lock", "red")...)
	if n := held(-1); n != 3 {
		t.Errorf("the lock is on %d of 3 servers while CMD runs", n)
	}
	r := cli(t, 30*time.Second, append(redArgs("--lock", "red", "--wait", "0"), "--", "true")...)
	if r.code != cliflag.ExitNotAcq || !strings.Contains(r.stderr, `RedLock of lock "red" on 3 servers not acquired`) {
		t.Errorf("second RedLock: want exit 75:\n%v", r)
	}
	if r := release(); r.code != 0 {
		t.Errorf("holder:\n%v", r)
	}
	if n := held(-1); n != 0 {
		t.Errorf("the lock is left on %d servers", n)
	}

	if err := servers[1].Stop(); err != nil {
		t.Fatal(err)
	}
	release = startHolder(t, redArgs("--lock", "red", "--timeout", "1s")...)
	if n := held(1); n != 2 {
		t.Errorf("with 1 of 3 servers stopped the lock is on %d of the 2 live servers while CMD runs", n)
	}
	r = release()
	if r.code != 0 || !strings.Contains(r.stderr, "warning: cannot reach Redis at "+servers[1].Addr()) {
		t.Fatalf("RedLock with 1 of 3 servers stopped: want CMD run and a warning:\n%v", r)
	}
	if n := held(1); n != 0 {
		t.Errorf("the lock is left on %d live servers", n)
	}

	if err := servers[2].Stop(); err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(t.TempDir(), "ran")
	r = cli(t, 60*time.Second, append(redArgs("--lock", "red", "--wait", "1s", "--timeout", "1s"), "--", "touch", marker)...)
	if r.code != cliflag.ExitError || !strings.Contains(r.stderr, "only 1 of 3 Redis servers answered; a RedLock needs 2") {
		t.Errorf("RedLock with 2 of 3 servers stopped: want exit 1:\n%v", r)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("CMD ran without a majority")
	}
	if n := raws[0].Exists(context.Background(), "red").Val(); n != 0 {
		t.Errorf("the lock is left on the live server")
	}
}

func TestRunMultiUsage(t *testing.T) {
	t.Parallel()
	const dead = "redis://127.0.0.1:1"
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--redis", dead, "--lock", "a", "--lock", "a"}, `lock "a" given twice`},
		{[]string{"--redis", dead, "--lock", "a", "--lock", ""}, cliflag.ErrNoName},
		{[]string{"--redis", dead, "--fenced", "--lock", "a", "--lock", "b"}, "--fenced takes one --lock"},
		{[]string{"--redis", dead, "--fenced", "--fair", "--lock", "a"}, "mutually exclusive"},
		{[]string{"--redis", dead, "--fenced", "--semaphore", "s", "--permits", "1"}, "go with --lock"},
		{[]string{"--redis", dead, "--redis", dead, "--redlock", "--fenced", "--lock", "a"}, "--fenced and --redlock"},
		{[]string{"--redis", dead, "--redis", dead, "--redlock", "--lock", "a", "--lock", "b"}, "--redlock takes one --lock"},
		{[]string{"--redis", dead, "--redlock", "--lock", "a"}, "--redlock needs at least 2 --redis servers"},
		{[]string{"--redis", dead, "--redis", dead, "--cluster", "--redlock", "--lock", "a"}, "not a --cluster"},
		{[]string{"--redis", dead, "--redis", "nonsense:x", "--redlock", "--lock", "a"}, `"nonsense:x"`},
		{[]string{"--redis", dead, "--redis", dead, "--lock", "a"}, "add --cluster"},
	} {
		checkUsage(t, strings.Join(tc.args, " "), cli(t, 30*time.Second, append(append([]string{"run"}, tc.args...), "--", "true")...), tc.want)
	}
}
