package main

import (
	"bytes"
	"testing"
	"time"

	"github.com/goredisson/redisson/internal/redistest"
)

// TestSpinTiny runs issue #38's group in a tiny configuration: both locks
// have their uncontended, contended and cost rows, the spin lock sends no
// pub/sub command, and no update is lost. It asserts no performance figure.
func TestSpinTiny(t *testing.T) {
	srv := redistest.StartServer(t)
	var log bytes.Buffer
	cfg := Config{
		Addr: srv.Addr(), Rounds: 1, Libs: allLibs, Ops: 30, CostOps: 30, OpsTimeout: 20 * time.Second,
		Procs: 2, Goroutines: 2, CostDuration: 300 * time.Millisecond,
		Only: map[string]bool{"spin": true}, Log: &log,
	}
	rep, err := Run(t.Context(), cfg)
	if err != nil {
		t.Fatalf("run: %v\nlog:\n%s", err, log.String())
	}
	for _, lib := range spinLibs {
		rows := map[string]*Measurement{}
		for _, m := range rep.Measurements {
			if m.Group == grpSpin && m.Lib == lib {
				rows[m.Metric] = m
			}
		}
		for _, metric := range []string{"lock+unlock pairs/s", "acquisitions/s", "round trips per contended acquisition",
			"  of which pub/sub (SUBSCRIBE etc.)", "lost updates", "lost updates (shared non-atomic counter)"} {
			if rows[metric] == nil {
				t.Fatalf("%s: no %q row\nlog:\n%s", lib, metric, log.String())
			}
		}
		// RLock's local hand-offs cost no round trip; every spin lock
		// acquisition is at least its try and its release.
		pairs, trips := rows["lock+unlock pairs/s"].Value, rows["round trips per contended acquisition"].Value
		if !(pairs > 0) || !(trips > 0) || lib == libSpin && trips < 2 {
			t.Errorf("%s: %v pairs/s, %v round trips per contended acquisition", lib, pairs, trips)
		}
		if rows["lost updates"].Value != 0 || rows["lost updates (shared non-atomic counter)"].Value != 0 {
			t.Errorf("%s: lost updates", lib)
		}
		if lib == libSpin && rows["  of which pub/sub (SUBSCRIBE etc.)"].Value != 0 {
			t.Errorf("the spin lock sent %v pub/sub commands per acquisition", rows["  of which pub/sub (SUBSCRIBE etc.)"].Value)
		}
	}
}
