package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/goredisson/redisson/internal/redistest"
)

// TestObserverTiny runs issue #18's group in a tiny configuration: both
// sides have their rows, the OpenTelemetry observer did record (spans
// ended, metric points collected) and the ratios are printed. It asserts
// no performance figure.
func TestObserverTiny(t *testing.T) {
	srv := redistest.StartServer(t)
	var log bytes.Buffer
	cfg := Config{
		Addr: srv.Addr(), Rounds: 1, Libs: allLibs, Ops: 50, OpsTimeout: 20 * time.Second,
		Only: map[string]bool{"observer": true}, Log: &log,
	}
	rep, err := Run(t.Context(), cfg)
	if err != nil {
		t.Fatalf("run: %v\nlog:\n%s", err, log.String())
	}
	var out bytes.Buffer
	rep.Print(&out)
	t.Logf("report:\n%s", out.String())
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
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q", want)
		}
	}
}
