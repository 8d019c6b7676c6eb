package main

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/goredisson/redisson/internal/redistest"
)

// TestMain doubles as the worker: the runner re-executes the test binary
// with the job in the environment.
func TestMain(m *testing.M) {
	if os.Getenv(workerEnv) != "" {
		workerMain()
		return
	}
	os.Exit(m.Run())
}

// TestRunnerTiny runs every scenario in a tiny configuration. It checks that
// the runner produced sane, non-zero results and that no library lost an
// update, overlapped holds or let a lease lapse; it asserts no performance
// figure.
func TestRunnerTiny(t *testing.T) {
	srv := redistest.StartServer(t)
	var log bytes.Buffer
	cfg := Config{
		Addr: srv.Addr(), Rounds: 1, Libs: allLibs, Ops: 200, OpsTimeout: 5 * time.Second,
		CostOps: 200, Procs: 2, Goroutines: 8, Verify: true,
		Watchdog: 600 * time.Millisecond, Periods: 3, LockCounts: []int{100},
		Waiters: 200, WaiterLocks: 20, Releases: 10,
		NoExtra: true, // TestExtraScenariosTiny
		Log:     &log,
	}
	rep, err := Run(t.Context(), cfg)
	if err != nil {
		t.Fatalf("run: %v\nlog:\n%s", err, log.String())
	}
	var out bytes.Buffer
	rep.Print(&out)
	t.Logf("report:\n%s", out.String())

	value := func(scenarioPrefix, metric, lib string) float64 {
		t.Helper()
		m := rep.lookup(scenarioPrefix, metric, lib)
		if m == nil {
			t.Fatalf("no %q / %q for %s", scenarioPrefix, metric, lib)
		}
		if len(m.Rounds) != cfg.Rounds {
			t.Errorf("%s / %s / %s: %d rounds, want %d", scenarioPrefix, metric, lib, len(m.Rounds), cfg.Rounds)
		}
		return m.Value
	}
	for _, lib := range allLibs {
		for _, c := range []struct{ scenario, metric string }{
			{"uncontended, 1 goroutine", "lock+unlock pairs/s"},
			{"uncontended, GOMAXPROCS", "lock+unlock pairs/s (total)"},
			{"contended", "acquisitions/s"},
			{"contended", "hand-off p50 (ms)"},
			{"contended", "longest wait (ms)"},
			{"Redis cost", "commands per uncontended lock+unlock"},
			{"Redis cost", "commands per contended acquisition"},
		} {
			if v := value(c.scenario, c.metric, lib); !(v > 0) {
				t.Errorf("%s: %s / %s = %v, want > 0", lib, c.scenario, c.metric, v)
			}
		}
		// Every lock+unlock costs at least one command each way.
		if v := value("Redis cost", "commands per uncontended lock+unlock", lib); v < 2 {
			t.Errorf("%s: %.2f commands per lock+unlock, want ≥ 2", lib, v)
		}
		for _, c := range []struct{ scenario, metric string }{
			{"contended", "lost updates (shared non-atomic counter)"},
			{"contended", "overlapping holds"},
			{"Redis cost", "lost updates during cost runs"},
		} {
			if v := value(c.scenario, c.metric, lib); v != 0 {
				t.Errorf("%s: %s = %v, want 0", lib, c.metric, v)
			}
		}
	}
	for _, lib := range []string{libOurs, libTimer} {
		if v := value("watchdog, 100 locks", "leases lapsed", lib); v != 0 {
			t.Errorf("%s: %v leases lapsed", lib, v)
		}
		if v := value("watchdog, 100 locks", "renewal round trips per period", lib); !(v > 0) {
			t.Errorf("%s: %v renewal round trips per period, want > 0", lib, v)
		}
		if v := value("watchdog, 100 locks", "leases renewed per period", lib); !(v > 0) {
			t.Errorf("%s: %v leases renewed per period, want > 0", lib, v)
		}
	}
	for _, lib := range floorLibs {
		for _, metric := range []string{"lock+unlock pairs/s", "redis-server CPU µs per pair"} {
			if v := value("bare scripts", metric, lib); !(v > 0) {
				t.Errorf("floor %s: %s = %v, want > 0", lib, metric, v)
			}
		}
	}
	if !strings.Contains(out.String(), libFloorRedisson+"÷"+libFloorSetNX) {
		t.Error("the floor table lacks its ratio column")
	}
	for _, metric := range []string{"pub/sub connections (client Stats)", "pub/sub connections (CLIENT LIST TYPE pubsub)"} {
		if v := value("waiters", metric, libOurs); v < 1 {
			t.Errorf("%s = %v, want ≥ 1", metric, v)
		}
	}
	if v := value("waiters", "wake-up after release p50 (ms)", libOurs); !(v > 0) {
		t.Errorf("wake-up p50 = %v, want > 0", v)
	}
	if v := value("waiters", "heap bytes per waiter", libOurs); !(v > 0) {
		t.Errorf("heap per waiter = %v, want > 0", v)
	}
	if len(rep.Breakdown) != len(allLibs) {
		t.Errorf("breakdown for %d libraries, want %d", len(rep.Breakdown), len(allLibs))
	}
	if len(rep.Targets) == 0 {
		t.Error("no targets evaluated")
	}
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"rounds"`, `"settings"`, `"contended_commands_breakdown"`, `"machine"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("JSON lacks %s", want)
		}
	}
}

func TestCommandLabel(t *testing.T) {
	l, ok := redistest.ParseMonitorLine(`+1700000000.123456 [0 127.0.0.1:5555] "EVALSHA" "abcdef0123456789" "1" "k\"q" "v"`)
	if !ok || l.Client != "127.0.0.1:5555" || l.Command != "evalsha" || len(l.Args) != 4 || l.Args[2] != `k"q` {
		t.Fatalf("got %+v %v", l, ok)
	}
	if got := commandLabel(l.Command, l.Args); got != "evalsha abcdef01 (1 keys, 1 args)" {
		t.Errorf("label %q", got)
	}
	if !isPubSubCommand("subscribe") || isPubSubCommand("publish") {
		t.Error("isPubSubCommand")
	}
	// A client's registration record is counted apart from the round trips.
	for _, c := range []struct {
		cmd  string
		args []string
		reg  bool
	}{
		{"set", []string{"redisson-go:client:0b1c", "{}", "px", "40000"}, true},
		{"del", []string{"redisson-go:client:0b1c"}, true},
		{"set", []string{"rb:k", "v"}, false},
		{"evalsha", []string{"abcdef0123456789", "1", "redisson-go:client:x"}, false},
	} {
		if got := isRegistration(commandLabel(c.cmd, c.args)); got != c.reg {
			t.Errorf("%s %v: registration %v, want %v", c.cmd, c.args, got, c.reg)
		}
	}
	got := sumCounts(map[string]int{"evalsha x (1 keys, 2 args)": 4, "subscribe": 1, "registration set": 3, "hello": 2, "client setinfo": 2})
	if want := (cmdCounts{total: 5, pubsub: 1, reg: 3, setup: 4}); got != want {
		t.Errorf("sumCounts: %+v, want %+v", got, want)
	}
}

func TestAnalyzeContended(t *testing.T) {
	s := &spawned{results: []Result{
		{Ops: 2, Seconds: 1, Events: [][3]int64{{0, 10, 20}, {15, 40, 50}}},
		{Ops: 1, Seconds: 1, Events: [][3]int64{{5, 25, 30}}},
	}}
	st := analyzeContended(s, 3, true)
	if st.acquisitions != 3 || st.rate != 3 || st.lost != 0 || st.overlaps != 0 {
		t.Fatalf("%+v", st)
	}
	// Hand-offs: 25-20 = 5 ns, 40-30 = 10 ns; longest wait 40-15 = 25 ns.
	if st.longestWait != 25e-6 || st.handoffP50 != 5e-6 || st.handoffP99 != 10e-6 {
		t.Fatalf("%+v", st)
	}
	s.results[1].Events[0] = [3]int64{5, 15, 30} // overlaps the first hold
	if st := analyzeContended(s, 2, true); st.overlaps != 1 || st.lost != 1 {
		t.Fatalf("%+v", st)
	}
}
