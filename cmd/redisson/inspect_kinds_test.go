package main

import (
	"strings"
	"testing"
	"time"

	"context"
	"fmt"

	"github.com/goredisson/redisson/fairlock"
)

// TestInspectHeldByRun: inspect on a fair lock and a read-write lock held by
// real run processes: the fair queue with each waiter's stale time, the
// read-write lock's mode, readers with hold counts and per-hold TTLs, writer.
func TestInspectHeldByRun(t *testing.T) {
	t.Parallel()
	url, rdb := server(t)
	ctx := context.Background()

	release := startHolder(t, "run", "--redis", url, "--lock", "fair", "--fair")
	cmd, stdout, stderr := cliCommand(t, "run", "--redis", url, "--lock", "fair", "--fair", "--wait", "60s", "--", "true")
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, "the waiter in the fair queue", func() (bool, string) {
		n, err := rdb.ZCard(ctx, fairlock.TimeoutName("fair")).Result()
		return n == 1, fmt.Sprint(n, err)
	})
	rep := inspectJSON(t, "--redis", url, "fair")
	if rep.Kind != "fair lock" || len(rep.Holders) != 1 || rep.Holders[0].Holds != 1 || len(rep.Queue) != 1 {
		t.Fatalf("fair lock: %+v", rep)
	}
	if q := rep.Queue[0]; q.Stale || q.StaleInMs == nil || *q.StaleInMs <= 0 || *q.StaleInMs > 91000 || q.TimeoutMs == nil {
		// Redisson's stale time of the first waiter: the lock's TTL (30 s
		// watchdog) plus its wait.
		t.Errorf("fair waiter with --wait 60s: %+v, stale in %v ms", q, ptrVal(q.StaleInMs))
	}
	if r := cli(t, 30*time.Second, "inspect", "--redis", url, "fair"); r.code != 0 || !strings.Contains(r.stdout, "gives up in") {
		t.Errorf("inspect fair:\n%v", r)
	}
	if r := release(); r.code != 0 {
		t.Fatalf("fair holder:\n%v", r)
	}
	if r := wait(t, cmd, stdout, stderr, start, 30*time.Second); r.code != 0 {
		t.Fatalf("fair waiter:\n%v", r)
	}

	r1 := startHolder(t, "run", "--redis", url, "--lock", "rw", "--read")
	r2 := startHolder(t, "run", "--redis", url, "--lock", "rw", "--read", "--lease", "50s")
	rep = inspectJSON(t, "--redis", url, "rw")
	if rep.Kind != "read-write lock" || rep.Mode == nil || *rep.Mode != "read" || len(rep.Holders) != 2 {
		t.Fatalf("read-locked: %+v", rep)
	}
	for _, h := range rep.Holders {
		if h.Mode != "read" || h.Holds != 1 || len(h.ReadTTLsms) != 1 || h.ReadTTLsms[0] <= 0 {
			t.Errorf("reader: %+v", h)
		}
	}
	for _, rel := range []func() result{r1, r2} {
		if r := rel(); r.code != 0 {
			t.Fatalf("reader:\n%v", r)
		}
	}
	w := startHolder(t, "run", "--redis", url, "--lock", "rw", "--write")
	rep = inspectJSON(t, "--redis", url, "rw")
	if rep.Mode == nil || *rep.Mode != "write" || len(rep.Holders) != 1 || rep.Holders[0].Mode != "write" ||
		!strings.HasSuffix(rep.Holders[0].Field, ":write") || rep.Holders[0].ReadTTLsms != nil {
		t.Errorf("write-locked: %+v", rep)
	}
	if r := w(); r.code != 0 {
		t.Fatalf("writer:\n%v", r)
	}
}

func ptrVal(p *int64) any {
	if p == nil {
		return nil
	}
	return *p
}
