package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/goredisson/redisson/internal/cli/cliflag"
)

// cliEnvRun runs the CLI with extra environment variables (REDIS_URL=...).
func cliEnvRun(t *testing.T, env []string, args ...string) result {
	t.Helper()
	cmd, stdout, stderr := cliCommand(t, args...)
	cmd.Env = cliEnv(env...)
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return wait(t, cmd, stdout, stderr, start, 30*time.Second)
}

// checkUsage checks a usage error: exit 2, the message on stderr's first
// line, the --help hint on the second, nothing else.
func checkUsage(t *testing.T, what string, r result, want string) {
	t.Helper()
	lines := strings.Split(strings.TrimRight(r.stderr, "\n"), "\n")
	if r.code != cliflag.ExitUsage || !strings.Contains(lines[0], want) || len(lines) != 2 ||
		!strings.HasPrefix(lines[1], `Run "redisson `) || r.stdout != "" {
		t.Errorf("%s: want exit 2 and %q, then the --help hint:\n%v", what, want, r)
	}
}

// TestNameRequired: every command given no lock name, or an empty one, says
// the same, and does nothing else (the Redis address is unreachable: a
// connection attempt would show).
func TestNameRequired(t *testing.T) {
	t.Parallel()
	const dead = "redis://127.0.0.1:1"
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"run without --lock", []string{"run", "--redis", dead, "--", "true"}},
		{"run --lock ''", []string{"run", "--redis", dead, "--lock", "", "--", "true"}},
		{"run --lock=", []string{"run", "--redis", dead, "--lock=", "--", "true"}},
		{"inspect without NAME", []string{"inspect", "--redis", dead}},
		{"inspect ''", []string{"inspect", "--redis", dead, ""}},
		{"inspect --json ''", []string{"inspect", "--json", "", "--redis", dead}},
		{"unlock --force without NAME", []string{"unlock", "--force", "--redis", dead}},
		{"unlock --force ''", []string{"unlock", "--force", "--redis", dead, ""}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			checkUsage(t, tc.name, cli(t, 30*time.Second, tc.args...), "redisson "+tc.args[0]+": "+cliflag.ErrNoName)
		})
	}
	checkUsage(t, "inspect a b", cli(t, 30*time.Second, "inspect", "--redis", dead, "a", "b"),
		`one lock name at a time, got 2: "a" "b"`)
	checkUsage(t, "unlock --force a ''", cli(t, 30*time.Second, "unlock", "--force", "--redis", dead, "a", ""),
		`one lock name at a time, got 2: "a" ""`)
}

// TestLeaseMustBePositive: a given --lease is at least 1ms, as rlock.WithLease
// wants; only leaving it out means the watchdog. CMD does not run.
func TestLeaseMustBePositive(t *testing.T) {
	t.Parallel()
	url, _ := server(t)
	marker := filepath.Join(t.TempDir(), "ran")
	for _, lease := range []string{"0", "0s", "-1s", "500us"} {
		r := cli(t, 30*time.Second, "run", "--redis", url, "--lock", "x", "--lease", lease, "--", "touch", marker)
		checkUsage(t, "run --lease "+lease, r, "--lease must be at least 1ms")
		if !strings.Contains(r.stderr, "leave --lease out for the watchdog") {
			t.Errorf("run --lease %s does not say how to get the watchdog:\n%v", lease, r)
		}
		r = cli(t, 30*time.Second, "demo", "--redis", url, "--lease", lease)
		checkUsage(t, "demo --lease "+lease, r, "--lease must be at least 1ms")
	}
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("CMD ran despite a bad --lease")
	}
	// 1ms is the least lease, and it is a lease: CMD outliving it loses the lock.
	if r := cli(t, 30*time.Second, "run", "--redis", url, "--lock", "x", "--lease", "1ms", "--", "sleep", "5"); r.code != cliflag.ExitLockLost {
		t.Errorf("run --lease 1ms -- sleep 5: want exit 76:\n%v", r)
	}
}

// TestBadRedisAddress: an address that cannot be dialled is a usage error
// (exit 2) found before dialling, from --redis or $REDIS_URL.
func TestBadRedisAddress(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		env  []string
		args []string
		want string
	}{
		{nil, []string{"inspect", "--redis", ":::", "x"}, `--redis ":::": bad host ":::": write an IPv6 address in brackets`},
		{[]string{"REDIS_URL=garbage"}, []string{"inspect", "x"}, `$REDIS_URL "garbage": not a Redis address`},
		{[]string{"REDIS_URL=garbage"}, []string{"run", "--lock", "x", "--", "true"}, `$REDIS_URL "garbage": not a Redis address`},
		{nil, []string{"unlock", "--force", "--redis", "redis://u:secret@h:0", "x"}, `--redis "redis://u:xxx@h:0": bad port "0"`},
		{nil, []string{"demo", "--redis", "redis-sentinel://127.0.0.1:1/"}, "want the master name as the path"},
		{nil, []string{"inspect", "--cluster", "--redis", "redis://127.0.0.1:1,garbage", "x"}, `--redis "garbage": not a Redis address`},
	} {
		r := cliEnvRun(t, tc.env, tc.args...)
		checkUsage(t, strings.Join(append(tc.env, tc.args...), " "), r, tc.want)
		if strings.Contains(r.stderr, "secret") {
			t.Errorf("the password shows:\n%v", r)
		}
	}
}

// TestConnectionError: nobody listens on port 1: exit 1 and one line of our
// own on stderr, none of go-redis' log lines.
func TestConnectionError(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"run", "--lock", "x", "--", "true"},
		{"inspect", "x"},
		{"unlock", "--force", "x"},
		{"demo"},
	} {
		args = append(args[:1:1], append([]string{"--redis", "redis://127.0.0.1:1", "--timeout", "500ms"}, args[1:]...)...)
		r := cli(t, 30*time.Second, args...)
		want := "redisson " + args[0] + ": cannot reach Redis at 127.0.0.1:1: "
		if r.code != cliflag.ExitError || !strings.HasPrefix(r.stderr, want) || strings.Count(r.stderr, "\n") != 1 {
			t.Errorf("%v: want exit 1 and one line %q...:\n%v", args, want, r)
		}
	}
}
