package main

import (
	"strings"
	"testing"
)

// TestObserverTiny runs issue #18's group in a tiny configuration: both
// sides have their rows, the OpenTelemetry observer did record (spans
// ended, metric points collected) and the ratios are printed. It asserts
// no performance figure.
func TestObserverTiny(t *testing.T) {
	rep, out := runTiny(t, "observer", nil)
	for _, lib := range observerLibs {
		for _, metric := range []string{"lock+unlock pairs/s", "client CPU µs per pair", "client allocations per pair"} {
			if m := rep.find(grpObserver, observerScenario, metric, lib); m == nil || !(m.Value > 0) {
				t.Errorf("%s / %s: %v, want > 0", metric, lib, m)
			}
		}
	}
	if m := rep.find(grpObserver, observerScenario, "spans ended per pair (exported to a discarding exporter)", libObsOtel); m == nil || m.Value < 2 {
		t.Errorf("spans per pair: %v, want ≥ 2 (a span for Lock and one for Unlock)", m)
	}
	if m := rep.find(grpObserver, observerScenario, "metric data points collected at the end", libObsOtel); m == nil || !(m.Value > 0) {
		t.Errorf("metric points: %v, want > 0", m)
	}
	for _, want := range []string{"otel÷" + libObsNone, "observer lock+unlock pairs/s, OTel ÷ none"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q", want)
		}
	}
}
