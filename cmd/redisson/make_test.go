package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestMakeDemoExamples: every `make demo ARGS="..."` the Makefile and the
// demo's help show runs as it is written (against a test server, so no
// private one is started).
func TestMakeDemoExamples(t *testing.T) {
	t.Parallel()
	mk, err := os.ReadFile("../../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	help := cli(t, 30*time.Second, "demo", "--help")
	examples := regexp.MustCompile(`make demo ARGS="([^"]*)"`).FindAllStringSubmatch(string(mk)+help.stdout, -1)
	if len(examples) < 3 {
		t.Fatalf("want make demo ARGS examples in the Makefile and in demo --help, found %d", len(examples))
	}
	url, _ := server(t)
	for _, m := range examples {
		if m[1] == "..." { // the target's synopsis in make help
			continue
		}
		args := strings.Fields(m[1])
		if !strings.Contains(m[1], "--ops") {
			args = append(args, "--ops", "200") // the example's figures, in less time
		}
		r := cli(t, 3*time.Minute, append([]string{"demo", "--redis", url}, args...)...)
		if r.code != 0 || !strings.Contains(r.stdout, "0 lost updates") {
			t.Errorf("make demo ARGS=%q:\n%v", m[1], r)
		}
	}
}

// TestEnsureRedisSaysWhatItDoes: when redis-server is missing, the script
// says on stderr what it is about to do before apt-get runs (quietly, for
// a minute or more), then that it is done. apt-get, sudo and the installed
// binaries are fakes on a PATH of their own.
func TestEnsureRedisSaysWhatItDoes(t *testing.T) {
	t.Parallel()
	bin := t.TempDir()
	for _, tool := range []string{"bash", "dirname", "id", "env", "cut", "chmod"} {
		p, err := exec.LookPath(tool)
		if err != nil {
			t.Skipf("%s not found: %v", tool, err)
		}
		if err := os.Symlink(p, filepath.Join(bin, tool)); err != nil {
			t.Fatal(err)
		}
	}
	write := func(name, script string) {
		if err := os.WriteFile(filepath.Join(bin, name), []byte("#!"+filepath.Join(bin, "bash")+"\n"+script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write("sudo", `exec "$@"`+"\n")
	// The fake apt-get marks its calls on stderr, and "installs" Redis.
	write("apt-get", `echo "APT-GET $*" >&2
if [[ " $* " == *" install "* ]]; then
	printf '#!%s\necho "Redis server v=7.2.4 sha=0"\n' "$(command -v bash)" > "$(dirname "$0")/redis-server"
	printf '#!%s\n' "$(command -v bash)" > "$(dirname "$0")/redis-cli"
	chmod +x "$(dirname "$0")/redis-server" "$(dirname "$0")/redis-cli"
fi
`)
	cmd := exec.Command(filepath.Join(bin, "bash"), "../../scripts/ensure-redis.sh")
	cmd.Env = []string{"PATH=" + bin, "HOME=" + t.TempDir()}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("ensure-redis.sh: %v\nstdout:\n%s\nstderr:\n%s", err, &stdout, &stderr)
	}
	lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "ensure-redis: redis-server redis-cli not found; installing redis-server with") ||
		!strings.Contains(lines[0], "apt-get") || !strings.HasPrefix(lines[1], "APT-GET update") ||
		!strings.HasPrefix(lines[2], "APT-GET ") || !strings.Contains(lines[2], "install") {
		t.Errorf("want one line saying what happens, then apt-get update and install:\n%s", &stderr)
	}
	if !strings.Contains(stdout.String(), "installed redis-server with apt-get: Redis server v=7.2.4") {
		t.Errorf("no closing line:\n%s", &stdout)
	}

	// With both there, it prints nothing.
	cmd = exec.Command(filepath.Join(bin, "bash"), "../../scripts/ensure-redis.sh")
	cmd.Env = []string{"PATH=" + bin}
	if out, err := cmd.CombinedOutput(); err != nil || len(out) != 0 {
		t.Errorf("with Redis installed: %v\n%s", err, out)
	}
}

// TestMakeFirstRun: `make` alone lists the targets instead of starting the
// long `make test`, and `make demo` says it is building before `go run`
// compiles in silence. make -n prints the recipes without running them.
func TestMakeFirstRun(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("make"); err != nil {
		t.Skipf("make not found: %v", err)
	}
	tests := []struct {
		args []string
		want []string // in this order
	}{
		{args: nil, want: []string{"test: ", "help: ", "demo: "}},
		{args: []string{"-n", "demo"}, want: []string{"echo \"make demo: building the CLI", "go run ./cmd/redisson demo"}},
	}
	for _, tc := range tests {
		cmd := exec.Command("make", append([]string{"--no-print-directory", "-C", "../.."}, tc.args...)...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("make %v: %v\n%s", tc.args, err, out)
		}
		rest := string(out)
		for _, w := range tc.want {
			i := strings.Index(rest, w)
			if i < 0 {
				t.Errorf("make %v: want %q (after the ones before it) in:\n%s", tc.args, w, out)
				break
			}
			rest = rest[i+len(w):]
		}
	}
}
