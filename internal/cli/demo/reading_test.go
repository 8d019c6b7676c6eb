package demo

import (
	"strings"
	"testing"
	"time"
)

// TestReading: the closing lines say what this run's figures owe to local
// hand-offs, from those figures only, and end with what to run next.
func TestReading(t *testing.T) {
	us := func(n ...int) []time.Duration {
		var l []time.Duration
		for _, v := range n {
			l = append(l, time.Duration(v)*time.Microsecond)
		}
		return l
	}
	tests := []struct {
		name    string
		h       handOffs
		ops     int
		workers int
		lockRT  float64
		want    []string // in the reading line, in this order
		not     []string
	}{
		{
			name: "most handed over, under one round trip",
			h:    handOffs{handedOver: 9, local: us(10, 12, 14, 20, 30, 40, 50, 60, 70), other: us(400)},
			ops:  10, workers: 8, lockRT: 0.15,
			want: []string{"90% of the acquisitions (9 of 10) were local hand-offs", "sent Redis nothing",
				"p50 30µs for those", "400µs for the 1 others", "under one lock round trip per acquisition (0.15)"},
		},
		{
			name: "handed over by script, a round trip or more",
			h:    handOffs{handedOver: 3, local: us(200, 250, 300), other: us(500, 600)},
			ops:  6, workers: 4, lockRT: 1.2,
			want: []string{"50% of the acquisitions (3 of 6)", "p50 250µs for those", "600µs for the 2 others"},
			not:  []string{"round trip"},
		},
		{
			name: "one goroutine per process",
			h:    handOffs{other: us(300, 400)},
			ops:  3, workers: 1, lockRT: 2,
			want: []string{"no acquisition was a local hand-off", "one goroutine per process"},
			not:  []string{"%", "p50"},
		},
		{
			name: "waiters, none handed over",
			h:    handOffs{other: us(300)},
			ops:  2, workers: 4, lockRT: 2,
			want: []string{"no acquisition was a local hand-off", "every one took the lock from Redis"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			lines := reading(tc.h, tc.ops, tc.workers, tc.lockRT)
			if !strings.HasPrefix(lines[0], readingLabel) || strings.Contains(lines[0], "\n") {
				t.Errorf("first line %q: want one line starting with %q", lines[0], readingLabel)
			}
			rest := lines[0]
			for _, w := range tc.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("reading lacks %q (after the ones before it): %q", w, lines[0])
				}
				rest = rest[i+len(w):]
			}
			for _, n := range tc.not {
				if strings.Contains(lines[0], n) {
					t.Errorf("reading says %q, which this run did not measure: %q", n, lines[0])
				}
			}
			if lines[1] != nextSteps || !strings.Contains(lines[1], "make bench") || !strings.Contains(lines[1], "redisson dashboard") {
				t.Errorf("second line %q: want the next steps", lines[1])
			}
		})
	}
}

// TestParseSection: the worker's section lines, with and without the
// hand-off mark, and lines that are not sections.
func TestParseSection(t *testing.T) {
	tests := []struct {
		line string
		want section
		ok   bool
	}{
		{`{"a":10,"r":25}`, section{acq: 10, rel: 25}, true},
		{`{"a":10,"r":25,"h":1}`, section{acq: 10, rel: 25, handedOver: true}, true},
		{`{"a":10,"r":x}`, section{}, false},
		{`{"a":10,"r":25,"h":2}`, section{}, false},
		{`{"ready":true}`, section{}, false},
	}
	for _, tc := range tests {
		got, ok := parseSection([]byte(tc.line))
		if ok != tc.ok || (ok && got != tc.want) {
			t.Errorf("parseSection(%s) = %+v, %v; want %+v, %v", tc.line, got, ok, tc.want, tc.ok)
		}
	}
}

// TestHandoffsOf: hand-offs are measured across processes in acquisition
// order and split by whether a local hand-off gave the lock.
func TestHandoffsOf(t *testing.T) {
	ws := []*demoWorker{
		{sections: []section{{acq: 0, rel: 10}, {acq: 12, rel: 20, handedOver: true}}},
		{sections: []section{{acq: 50, rel: 60}, {acq: 58, rel: 70}}},
	}
	h := handoffsOf(ws)
	if h.handedOver != 1 || h.overlaps != 1 || len(h.all) != 3 {
		t.Fatalf("handoffsOf = %+v: want 1 handed over, 1 overlap, 3 hand-offs", h)
	}
	if len(h.local) != 1 || h.local[0] != 2 || len(h.other) != 2 || h.other[0] != -2 || h.other[1] != 30 {
		t.Errorf("handoffsOf = %+v: want local [2ns], other [-2ns 30ns]", h)
	}
}
