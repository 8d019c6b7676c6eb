package main

import (
	"fmt"
	"strings"
	"testing"
)

// TestCachesTiny runs issue #36's group in a tiny configuration: every row
// of both sides is there, each side sends one command per operation, and
// the ratios are printed. It asserts no performance figure.
func TestCachesTiny(t *testing.T) {
	rep, out := runTiny(t, "caches", nil)
	for _, o := range cacheOps {
		for _, lib := range cacheLibs() {
			for _, metric := range []string{o.unit + "s/s", "client CPU µs per " + o.unit, "client allocations per " + o.unit} {
				if m := rep.lookup(o.name, metric, lib); m == nil || !(m.Value > 0) {
					t.Errorf("%s / %s / %s: %v, want > 0", o.name, metric, lib, m)
				}
			}
			if m := rep.lookup(o.name, "round trips per "+o.unit+" (MONITOR)", lib); m == nil || m.Value != 1 {
				t.Errorf("%s / %s: %v round trips, want 1", o.name, lib, m)
			}
		}
	}
	clean := fmt.Sprintf("%s, N = %d", scCleanUp, 50) // runTiny's Ops
	if m := rep.lookup(clean, "server µs per expired entry (SLOWLOG)", libCacheOurs); m == nil || !(m.Value > 0) {
		t.Errorf("%s: %v, want > 0", clean, m)
	}
	if !strings.Contains(out, "ops/s, ours ÷ plain go-redis") {
		t.Errorf("report lacks the ratio lines:\n%s", out)
	}
}
