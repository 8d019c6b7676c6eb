package main

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/goredisson/redisson/internal/redistest"
)

// TestExtraScenariosTiny runs the groups of issues #9 and #10 (fair lock,
// read-heavy read-write lock, rate limiters, semaphore) in a tiny
// configuration: every row is there for every library with sane values, no
// exclusion is broken, no permit lost or created. It asserts no
// performance figure.
func TestExtraScenariosTiny(t *testing.T) {
	srv := redistest.StartServer(t)
	var log bytes.Buffer
	cfg := Config{
		Addr: srv.Addr(), Rounds: 1, Libs: allLibs, Ops: 100, OpsTimeout: 20 * time.Second,
		Procs: 2, Goroutines: 4, Verify: true,
		Only:      map[string]bool{"fair": true, "rwlock": true, "ratelimit": true, "semaphore": true},
		RateLimit: 50, RateGoroutines: []int{1, 4}, RateAccuracyPeriod: 1500 * time.Millisecond,
		SemPermits: 2, ReadPercent: 90,
		Log: &log,
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
	positive := func(group, sc, metric, lib string) {
		t.Helper()
		if v := value(group, sc, metric, lib); !(v > 0) {
			t.Errorf("%s: %s / %s = %v, want > 0", lib, sc, metric, v)
		}
	}
	zero := func(group, sc, metric, lib string) {
		t.Helper()
		if v := value(group, sc, metric, lib); v != 0 {
			t.Errorf("%s: %s / %s = %v, want 0", lib, sc, metric, v)
		}
	}

	for _, lib := range []string{libOurs, libFair} {
		for _, metric := range []string{"acquisitions/s", "hand-off p50 (ms)", "longest wait (ms)"} {
			positive(grpFair, "fair lock vs RLock", metric, lib)
		}
		for _, metric := range []string{"lost updates (shared non-atomic counter)", "overlapping holds", "stalled Lock calls (by op count)"} {
			zero(grpFair, "fair lock vs RLock", metric, lib)
		}
	}
	for _, lib := range []string{libOurs, libRW} {
		for _, metric := range []string{"read acquisitions/s", "write acquisitions/s", "read wait p99 (ms)"} {
			positive(grpRW, "read-heavy", metric, lib)
		}
		for _, metric := range []string{"lost updates (shared non-atomic counter)", "exclusion violations (reader beside a writer)", "stalled Lock calls (by op count)"} {
			zero(grpRW, "read-heavy", metric, lib)
		}
	}
	for _, lib := range []string{libRate, libRateBG, libGCRA} {
		positive(grpRate, "decisions, 1 process × 1 goroutine", "decisions/s", lib)
		positive(grpRate, "decisions, 1 process × 4 goroutine", "decisions/s", lib)
	}
	for _, lib := range []string{libRate, libGCRA} {
		// Granted over 1.5 s: about the rate's worth, never wildly more
		// (redis_rate's burst adds at most one second's worth).
		if v := value(grpRate, "accuracy", "permits granted ÷ (rate × duration)", lib); !(v > 0.3 && v < 2.5) {
			t.Errorf("%s: granted ÷ allowed = %v", lib, v)
		}
	}
	// The sliding window grants about the rate in any second. Not exactly:
	// the windows are measured on the workers' call times, a few ms off
	// the clock reading each grant is scored with (more under -race), and
	// grants scored with clock readings that reach Redis out of order can
	// go slightly over; a broken window would show as 2× here.
	if v := value(grpRate, "accuracy", "most permits in any 1 s window ÷ rate", libRate); v > 1.5 {
		t.Errorf("ours granted %.2f × the rate in one second", v)
	}
	for _, metric := range []string{"acquire+release pairs/s", "wake-up after release p50 (ms)"} {
		positive(grpSem, "semaphore", metric, libSem)
	}
	for _, metric := range []string{"holders above the permits (shared gauge)", "permits lost or created", "stalled acquire calls (by op count)"} {
		zero(grpSem, "semaphore", metric, libSem)
	}
	for _, want := range []string{"fair÷redisson-go", "rwlock÷redisson-go", "ours÷redis_rate", "fair lock: longest wait shortest"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q", want)
		}
	}
	for _, lib := range []string{libFair, libRW, libRate, libRateBG, libGCRA, libSem} {
		if !slices.ContainsFunc(rep.Settings, func(s LibSettings) bool { return s.Lib == lib && len(s.Settings) > 0 }) {
			t.Errorf("no settings printed for %s", lib)
		}
	}
	// The built-in groups did not run.
	if rep.lookup("uncontended", "lock+unlock pairs/s", libOurs) != nil {
		t.Error("--only the new groups also ran the uncontended scenario")
	}
}

func TestMaxInWindow(t *testing.T) {
	ts := []int64{0, 100, 999, 1000, 1500, 1999, 2000}
	if got := maxInWindow(ts, 1000); got != 3 {
		t.Errorf("maxInWindow = %d, want 3", got)
	}
	if got := maxInWindow(nil, 1000); got != 0 {
		t.Errorf("empty: %d", got)
	}
}

func TestAnalyzeSemaphore(t *testing.T) {
	// 1 permit: A holds 0..10 (released at 10), B called at 5 and got it at
	// 12 (woken 2 after the release), C called at 20 with the permit free.
	s := &spawned{results: []Result{{Ops: 3, Seconds: 1, Events: [][3]int64{{0, 1, 10}, {5, 12, 15}, {20, 21, 22}}}}}
	st := analyzeSemaphore(s, 1)
	if st.pairs != 3 || st.wakeups != 1 || st.wakeP50 != 2e-6 || st.longestWait != 7e-6 {
		t.Fatalf("%+v", st)
	}
}
