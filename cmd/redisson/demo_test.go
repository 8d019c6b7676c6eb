package main

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/goredisson/redisson/internal/redistest"
)

// checkDemo checks a demo's output: success, every figure printed, and the
// round trips counted (the lock some but at most 3 per acquisition, the
// counter exactly a GET and a SET).
func checkDemo(t *testing.T, r result) {
	t.Helper()
	if r.code != 0 || !strings.Contains(r.stdout, "0 lost updates") {
		t.Fatalf("demo:\n%v", r)
	}
	for _, want := range []string{"acquisitions/s", "p50", "p99", "per acquisition", "200 of 200"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("demo output lacks %q:\n%s", want, r.stdout)
		}
	}
	m := regexp.MustCompile(`round trips +([0-9.]+) per acquisition: ([0-9.]+) lock \+ ([0-9.]+) counter`).FindStringSubmatch(r.stdout)
	if m == nil {
		t.Fatalf("no round trips line:\n%s", r.stdout)
	}
	if m[3] != "2.00" {
		t.Errorf("counter round trips %s per acquisition, want 2.00 (GET and SET)", m[3])
	}
	// An unlock passes the hold to a local waiter without a command
	// (docs/waiting.md), so fewer than one per acquisition is the rule; none
	// would mean the lock never reached Redis, and more than 3 that waiters
	// ask Redis in vain.
	if lock, _ := strconv.ParseFloat(m[2], 64); lock <= 0 || lock > 3 {
		t.Errorf("lock round trips %s per acquisition, want more than 0 and at most 3", m[2])
	}
	checkReading(t, r.stdout, m[2])
	// Not a terminal: plain lines, no carriage returns.
	if strings.Contains(r.stdout, "\r") {
		t.Errorf("progress bar redrawn with \\r although stdout is not a terminal")
	}
}

func TestDemoPrivateServer(t *testing.T) {
	t.Parallel()
	if _, err := redistest.Binary(); err != nil {
		t.Fatal(err)
	}
	r := cli(t, 3*time.Minute, "demo", "--ops", "200", "--procs", "2", "--workers", "4")
	checkDemo(t, r)
	if !strings.Contains(r.stdout, "private") {
		t.Errorf("demo without --redis should say it uses a private server:\n%s", r.stdout)
	}
}

func TestDemoWithRedis(t *testing.T) {
	t.Parallel()
	url, _ := server(t)
	r := cli(t, 3*time.Minute, "demo", "--redis", url, "--ops", "200", "--procs", "2", "--workers", "4")
	checkDemo(t, r)
	if strings.Contains(r.stdout, "private") || !strings.Contains(r.stdout, strings.TrimPrefix(url, "redis://")) {
		t.Errorf("demo with --redis should use it:\n%s", r.stdout)
	}
	r = cli(t, 3*time.Minute, "demo", "--redis", url, "--ops", "200", "--procs", "2", "--workers", "4", "--lease", "5s")
	checkDemo(t, r)
	if !strings.Contains(r.stdout, "fixed 5s") {
		t.Errorf("--lease not shown:\n%s", r.stdout)
	}
}

func TestDemoCluster(t *testing.T) {
	t.Parallel()
	c := redistest.StartCluster(t, 3)
	url := "redis://" + strings.Join(c.Addrs(), ",")
	r := cli(t, 3*time.Minute, "demo", "--cluster", "--redis", url, "--ops", "200", "--procs", "2", "--workers", "4")
	checkDemo(t, r)
	if strings.Count(strings.SplitN(r.stdout, "\n\n", 2)[0], "127.0.0.1:") < 6 {
		t.Errorf("demo on a cluster should MONITOR all 3 masters:\n%s", r.stdout)
	}
}

// checkReading checks the report's two closing lines: the share of local
// hand-offs, out of the acquisitions made, and what to run next. A lock
// that needed fewer round trips than acquisitions (lockRT) owes it to local
// hand-offs, and the reading must say so.
func checkReading(t *testing.T, stdout, lockRT string) {
	t.Helper()
	lines := strings.Split(strings.TrimRight(stdout, "\n"), "\n")
	if len(lines) < 2 || !strings.HasPrefix(lines[len(lines)-2], "reading: ") || !strings.HasPrefix(lines[len(lines)-1], "next: ") {
		t.Fatalf("the report does not end with the reading and the next steps:\n%s", stdout)
	}
	reading, next := lines[len(lines)-2], lines[len(lines)-1]
	for _, want := range []string{"make bench", "redisson dashboard"} {
		if !strings.Contains(next, want) {
			t.Errorf("next steps lack %q: %s", want, next)
		}
	}
	handedOver := 0
	if m := regexp.MustCompile(`^reading: [0-9]+% of the acquisitions \(([0-9]+) of 200\) were local hand-offs: `).FindStringSubmatch(reading); m != nil {
		handedOver, _ = strconv.Atoi(m[1])
		if handedOver < 1 || handedOver > 200 {
			t.Errorf("%d of 200 acquisitions handed over: %s", handedOver, reading)
		}
	} else if !strings.HasPrefix(reading, "reading: no acquisition was a local hand-off") {
		t.Fatalf("reading gives no share of local hand-offs: %s", reading)
	}
	if rt, _ := strconv.ParseFloat(lockRT, 64); rt < 1 {
		if handedOver == 0 || !strings.Contains(reading, "under one lock round trip per acquisition ("+lockRT+")") {
			t.Errorf("%s lock round trips per acquisition, but the reading does not put it down to local hand-offs: %s", lockRT, reading)
		}
	}
}
