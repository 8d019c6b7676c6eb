package main

import (
	"bytes"
	"testing"
	"time"

	"github.com/goredisson/redisson/internal/redistest"
)

// TestKindsTiny runs issue #24's group in a tiny configuration: every lock
// kind has its rows, each lock+unlock is two round trips, and the scripts'
// calls are counted. It asserts no performance figure.
func TestKindsTiny(t *testing.T) {
	srv := redistest.StartServer(t)
	var log bytes.Buffer
	cfg := Config{
		Addr: srv.Addr(), Rounds: 1, Libs: allLibs, Ops: 50, CostOps: 50, OpsTimeout: 20 * time.Second,
		Only: map[string]bool{"kinds": true}, Log: &log,
	}
	rep, err := Run(t.Context(), cfg)
	if err != nil {
		t.Fatalf("run: %v\nlog:\n%s", err, log.String())
	}
	for _, lib := range kindLibs {
		var pairs, trips, calls, reg *Measurement
		for _, m := range rep.Measurements {
			if m.Group != grpKinds || m.Lib != lib {
				continue
			}
			switch m.Metric {
			case "lock+unlock pairs/s":
				pairs = m
			case "round trips per lock+unlock":
				trips = m
			case "Redis calls inside scripts per lock+unlock":
				calls = m
			case regMetric:
				reg = m
			}
		}
		if pairs == nil || trips == nil || calls == nil || reg == nil {
			t.Fatalf("%s: rows missing\nlog:\n%s", lib, log.String())
		}
		if !(pairs.Value > 0) {
			t.Errorf("%s: %v pairs/s", lib, pairs.Value)
		}
		// Acquire and release are one script each, with the watchdog's
		// renewals (none within a tiny run) and the registration record's
		// background writes (their own row) aside.
		if trips.Value != 2 {
			t.Errorf("%s: %v round trips per pair, want 2", lib, trips.Value)
		}
		if !(calls.Value >= 4) {
			t.Errorf("%s: %v calls inside scripts per pair", lib, calls.Value)
		}
	}
}
