package main

import (
	"strings"
	"testing"
)

// TestCollectionsTiny runs issue #20's group in a tiny configuration: every
// row of both sides is there, the delayed queue delivers every element
// once, and the ratios are printed. It asserts no performance figure.
func TestCollectionsTiny(t *testing.T) {
	rep, out := runTiny(t, "collections", nil)
	for _, o := range collOps {
		for _, lib := range o.libs {
			for _, metric := range []string{o.unit + "s/s", "client CPU µs per " + o.unit, "client allocations per " + o.unit, "round trips per " + o.unit + " (MONITOR)"} {
				if m := rep.lookup(o.name, metric, lib); m == nil || !(m.Value > 0) {
					t.Errorf("%s / %s / %s: %v, want > 0", o.name, metric, lib, m)
				}
			}
		}
	}
	// Both sides send the same commands: one per map operation, two per
	// queue pair.
	for _, o := range collOps {
		want := 1.0
		if o.unit != "op" {
			want = 2
		}
		for _, lib := range o.libs {
			if m := rep.lookup(o.name, "round trips per "+o.unit+" (MONITOR)", lib); m == nil || m.Value != want {
				t.Errorf("%s / %s: %v round trips, want %v", o.name, lib, m, want)
			}
		}
	}
	for _, metric := range []string{"elements offered/s", "lateness p50 (ms, take return − offer time − delay)", "lateness p99 (ms)"} {
		if m := rep.lookup("delayed queue", metric, libCollOurs); m == nil || m.Value == 0 {
			t.Errorf("delayed queue / %s: %v, want a figure", metric, m)
		}
	}
	for _, metric := range []string{"elements lost (offered, never taken)", "elements taken twice"} {
		if m := rep.lookup("delayed queue", metric, libCollOurs); m == nil || m.Value != 0 {
			t.Errorf("delayed queue / %s: %v, want 0", metric, m)
		}
	}
	for _, want := range []string{"ours÷go-redis raw", "ops/s, ours ÷ go-redis raw", "put+takes/s, ours ÷ go-redis raw"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q", want)
		}
	}
}
