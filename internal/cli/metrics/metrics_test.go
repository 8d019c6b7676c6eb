package metrics_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/cli/ls"
	"github.com/goredisson/redisson/internal/cli/metrics"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/semaphore"
)

// TestExpositionChecker: the checker finds what promtool finds, so that
// its silence on /metrics means something.
func TestExpositionChecker(t *testing.T) {
	t.Parallel()
	const good = "# HELP a_b A b.\n# TYPE a_b gauge\na_b{name=\"x\\\"y\\\\z\\n\"} 1\na_b{name=\"w\"} 2.5\n# HELP c_total C.\n# TYPE c_total counter\nc_total 3\n"
	if bad := checkExposition(good); len(bad) != 0 {
		t.Fatalf("good text: %v", bad)
	}
	for _, tc := range []struct{ text, want string }{
		{"# HELP redisson_latch_count C.\n# TYPE redisson_latch_count gauge\nredisson_latch_count 1\n", "must not end in _count"},
		{"# HELP a_sum S.\n# TYPE a_sum gauge\na_sum 1\n", "must not end in _sum"},
		{"# HELP a C.\n# TYPE a counter\na 1\n", "must end in _total"},
		{"# TYPE a gauge\na 1\n", "no help text"},
		{"a 1\n", "samples without TYPE"},
		{"# HELP a A.\n# TYPE a gauge\na{n=\"x\\ty\"} 1\n", `escape \t`},
		{"# HELP a A.\n# TYPE a gauge\na{n=\"x\"y\"} 1\n", "bad label"},
		{"# HELP a A.\n# TYPE a gauge\na{n=\"x\"} 1\na{n=\"x\"} 2\n", "twice"},
		{"# HELP a A.\n# TYPE a gauge\na{n=\"x\",n=\"y\"} 1\n", "repeated label"},
		{"# HELP a A.\n# TYPE a gauge\na{n=\"\xff\"} 1\n", "not UTF-8"},
		{"# HELP a A.\n# TYPE a gauge\na one\n", "bad value"},
		{"# HELP a A.\n# TYPE a gauge\n# HELP b B.\n# TYPE b gauge\na 1\nb 1\na{x=\"1\"} 1\n", "not together"},
		{"# HELP aB A.\n# TYPE aB gauge\naB 1\n", "snake case"},
		{"# HELP a A.\n# TYPE a gauge\na 1", "line feed"},
	} {
		bad := strings.Join(checkExposition(tc.text), "; ")
		if !strings.Contains(bad, tc.want) {
			t.Errorf("%q: got %q, want %q", tc.text, bad, tc.want)
		}
	}
}

// oddNames are keys whose names the text format must escape or that are
// not UTF-8: each is still one series of its own.
var oddNames = []string{`m:"quoted"`, `m:back\slash`, "m:new\nline", "m:esc\x1b[31m", "m:bad\xffutf8", `"m:lead"`, "m:bell\a"}

// scrape fills a Redis with one object of most kinds and the odd names,
// and returns /metrics' text of it.
func scrape(t *testing.T) string {
	t.Helper()
	s := redistest.StartServer(t)
	rdb := redistest.Client(t, s)
	ctx := context.Background()
	c, err := redisson.New(rdb)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range oddNames {
		_, err := c.Lock(n).Lock(ctx)
		must(err)
	}
	_, err = c.FairLock("m:fair").Lock(ctx)
	must(err)
	_, err = c.ReadWriteLock("m:rw").ReadLock().Lock(ctx)
	must(err)
	_, err = c.Semaphore("m:sem").TrySetPermits(ctx, 3)
	must(err)
	pes := c.PermitExpirableSemaphore("m:pes")
	_, err = pes.TrySetPermits(ctx, 3)
	must(err)
	_, err = pes.Acquire(ctx, semaphore.WithLease(time.Minute))
	must(err)
	_, err = c.CountDownLatch("m:latch").TrySetCount(ctx, 2)
	must(err)
	sub := rdb.Subscribe(ctx, "redisson_countdownlatch__channel__{m:latch}")
	t.Cleanup(func() { sub.Close() })
	_, err = sub.Receive(ctx)
	must(err)
	must(rdb.Set(ctx, "m:long", "42", 0).Err())
	must(rdb.HSet(ctx, "m:map", "k", "1").Err())
	must(rdb.Set(ctx, "m:text", "hello", time.Hour).Err())
	must(rdb.RPush(ctx, "m:list", "x").Err())
	return write(t, rdb)
}

func write(t *testing.T, rdb redis.UniversalClient) string {
	t.Helper()
	res, err := ls.List(context.Background(), rdb, ls.Options{Pattern: "*", MaxKeys: 10000, ScanCount: 1000})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	metrics.Write(&b, res, 12*time.Millisecond, nil, metrics.Options{Top: metrics.DefaultTop})
	return b.String()
}

// TestMetricsFormat: /metrics' text follows the exposition format and
// passes promtool's lints, odd names included, each its own series; the
// latch's count is redisson_latch_remaining.
func TestMetricsFormat(t *testing.T) {
	t.Parallel()
	out := scrape(t)
	for _, bad := range checkExposition(out) {
		t.Error(bad)
	}
	for _, want := range []string{
		`redisson_latch_remaining{name="m:latch"} 2`,
		`redisson_lock_held{name="m:\"quoted\"",kind="lock"} 1`,
		`redisson_lock_held{name="m:back\\slash",kind="lock"} 1`,
		`redisson_lock_held{name="m:new\nline",kind="lock"} 1`,
		"redisson_lock_held{name=\"m:esc\x1b[31m\",kind=\"lock\"} 1",
		`redisson_lock_held{name="\"m:bad\\xffutf8\"",kind="lock"} 1`,
		`redisson_lock_held{name="\"\\\"m:lead\\\"\"",kind="lock"} 1`,
		`redisson_semaphore_acquired_permits{name="m:pes"} 1`,
		`redisson_objects{kind="map"} 1`,
	} {
		if !strings.Contains(out, want+"\n") {
			t.Errorf("lacks %s", want)
		}
	}
	if strings.Contains(out, "redisson_latch_count") {
		t.Error("redisson_latch_count is still there")
	}
	// One series per lock: the odd names, the fair and the read-write lock.
	if n := len(regexp.MustCompile(`(?m)^redisson_lock_held\{`).FindAllString(out, -1)); n != len(oddNames)+2 {
		t.Errorf("%d lock series, want %d", n, len(oddNames)+2)
	}
	if t.Failed() {
		t.Log(out)
	}
}

// TestMetricsPromtool: "promtool check metrics" accepts /metrics' text.
// make test installs promtool (scripts/ensure-promtool.sh, Debian's
// prometheus package) and sets REDISSON_REQUIRE_PROMTOOL, and then its
// absence fails; elsewhere TestMetricsFormat's checker stands in for it.
func TestMetricsPromtool(t *testing.T) {
	t.Parallel()
	tool := os.Getenv("PROMTOOL")
	if tool == "" {
		tool = "promtool"
	}
	path, err := exec.LookPath(tool)
	if err != nil {
		if os.Getenv("REDISSON_REQUIRE_PROMTOOL") != "" {
			t.Fatalf("promtool not found (%v): run bash scripts/ensure-promtool.sh, or set PROMTOOL", err)
		}
		t.Skipf("promtool not found (%v): TestMetricsFormat checks the format without it", err)
	}
	// Most kinds; and the hold-age and holder families with a live, a
	// gone and a record-less holder.
	for _, out := range []string{scrape(t), holdsScrape(t)} {
		cmd := exec.Command(path, "check", "metrics")
		cmd.Stdin = strings.NewReader(out)
		msg, err := cmd.CombinedOutput()
		if err != nil {
			t.Errorf("promtool check metrics: %v\n%s\n--- input:\n%s", err, msg, out)
		}
	}
	// promtool must fail the name it failed before, or its pass says nothing.
	cmd := exec.Command(path, "check", "metrics")
	cmd.Stdin = strings.NewReader("# HELP redisson_latch_count C.\n# TYPE redisson_latch_count gauge\nredisson_latch_count{name=\"x\"} 1\n")
	if msg, err := cmd.CombinedOutput(); err == nil {
		t.Errorf("promtool passes a gauge named *_count: %s", msg)
	}
}
