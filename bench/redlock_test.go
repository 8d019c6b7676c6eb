package main

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/goredisson/redisson/internal/redistest"
)

// TestRedLockScenariosTiny runs the groups of issue #13 (RedLock over 3
// and 5 private servers beside redsync's, the multi-lock of 10 RLocks
// beside the group of 10 values) in a tiny configuration: every row is
// there for every library with sane values and no exclusion is broken. It
// asserts no performance figure.
func TestRedLockScenariosTiny(t *testing.T) {
	srv := redistest.StartServer(t)
	var log bytes.Buffer
	cfg := Config{
		Addr: srv.Addr(), Rounds: 1, Libs: allLibs, Ops: 40, OpsTimeout: 60 * time.Second,
		Procs: 2, Goroutines: 3, Verify: true,
		Only: map[string]bool{"redlock": true, "multilock": true},
		Log:  &log,
	}
	rep, err := Run(t.Context(), cfg)
	if err != nil {
		t.Fatalf("run: %v\nlog:\n%s", err, log.String())
	}
	var out bytes.Buffer
	rep.Print(&out)
	t.Logf("report:\n%s", out.String())

	value := func(group, scenarioPrefix, metric, lib string) float64 {
		t.Helper()
		for _, m := range rep.Measurements {
			if m.Group == group && strings.HasPrefix(m.Scenario, scenarioPrefix) && m.Metric == metric && m.Lib == lib {
				if len(m.Rounds) != cfg.Rounds {
					t.Errorf("%s / %s / %s: %d rounds, want %d", scenarioPrefix, metric, lib, len(m.Rounds), cfg.Rounds)
				}
				return m.Value
			}
		}
		t.Fatalf("no %q / %q / %q for %s", group, scenarioPrefix, metric, lib)
		return 0
	}
	for _, lib := range []string{libRedLock, libRedsyncRedLock} {
		for _, n := range []string{"3", "5"} {
			sc := "RedLock over " + n + " servers"
			if v := value(grpRedLock, sc+", uncontended", "lock+unlock pairs/s", lib); !(v > 0) {
				t.Errorf("%s, %s servers: uncontended pairs/s = %v", lib, n, v)
			}
			if v := value(grpRedLock, sc+", uncontended", "client allocations per pair", lib); !(v > 0) {
				t.Errorf("%s, %s servers: client allocations per pair = %v", lib, n, v)
			}
			// A tiny run may use less server CPU than the kernel's
			// accounting resolves: present and not negative.
			if v := value(grpRedLock, sc+", uncontended", "redis-server CPU µs per pair (all servers)", lib); !(v >= 0) {
				t.Errorf("%s, %s servers: redis-server CPU per pair = %v", lib, n, v)
			}
			for _, metric := range []string{"acquisitions/s", "longest wait (ms)"} {
				if v := value(grpRedLock, sc+", contended", metric, lib); !(v > 0) {
					t.Errorf("%s, %s servers: %s = %v", lib, n, metric, v)
				}
			}
			for _, metric := range []string{"lost updates (shared non-atomic counter)", "overlapping holds", "stalled Lock calls (by op count)"} {
				if v := value(grpRedLock, sc+", contended", metric, lib); v != 0 {
					t.Errorf("%s, %s servers: %s = %v, want 0", lib, n, metric, v)
				}
			}
		}
	}
	for _, lib := range []string{libMulti10, libGroup10} {
		if v := value(grpMulti, "multi-lock of 10", "lock+unlock pairs/s", lib); !(v > 0) {
			t.Errorf("%s: pairs/s = %v", lib, v)
		}
	}
	// The group takes its 10 values in one script each way; the multi-lock
	// sends at least one acquire and one release per RLock.
	if v := value(grpMulti, "multi-lock of 10", "Redis round trips per lock+unlock (MONITOR)", libGroup10); v < 2 || v >= 20 {
		t.Errorf("group: %.2f round trips per pair, want at least 2 and fewer than the multi-lock's 20", v)
	}
	if v := value(grpMulti, "multi-lock of 10", "Redis round trips per lock+unlock (MONITOR)", libMulti10); v < 20 {
		t.Errorf("multi-lock of 10 RLocks: %.2f round trips per pair, want ≥ 20", v)
	}
	for _, want := range []string{"ours÷redsync RedLock", "group÷redisson-go MultiLock 10"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q", want)
		}
	}
	// Issue #22's targets: pass or not (a tiny run says nothing about
	// speed), each server count has its three ratio lines.
	for _, k := range []string{"3", "5"} {
		for _, metric := range []string{"uncontended: lock+unlock pairs/s", "contended: acquisitions/s", "contended: longest wait (ms)"} {
			name := "RedLock over " + k + " servers, " + metric + ", ours ÷ redsync"
			if !slices.ContainsFunc(rep.Targets, func(tg Target) bool { return tg.Name == name && tg.Want != "" && tg.Got != "" }) {
				t.Errorf("no target %q", name)
			}
		}
	}
	for _, lib := range []string{libRedLock, libRedsyncRedLock, libMulti10, libGroup10} {
		if !slices.ContainsFunc(rep.Settings, func(s LibSettings) bool { return s.Lib == lib && len(s.Settings) > 0 }) {
			t.Errorf("no settings printed for %s", lib)
		}
	}
}
