package main

import (
	"strings"
	"testing"
)

// TestTopicTiny runs the topic group in a tiny configuration: both sides
// deliver every message to every subscriber (nothing lost, nothing
// dropped at this size), every row is there, and the targets are printed.
// It asserts no performance figure.
func TestTopicTiny(t *testing.T) {
	rep, out := runTiny(t, "topic", func(c *Config) { c.TopicSubscribers, c.TopicRate = 5, 500 })
	for _, sc := range []string{"fan-out, 1 publisher as fast as it can", "fan-out, 1 publisher at 500 messages/s"} {
		for _, lib := range []string{libTopic, libRawPS} {
			for _, metric := range []string{"messages delivered/s (all subscribers)", "delivery latency p50 (ms)", "delivery latency p99 (ms)", "client CPU µs per delivery"} {
				if m := rep.lookup(sc, metric, lib); m == nil || !(m.Value > 0) {
					t.Errorf("%s / %s / %s: %v, want > 0", sc, metric, lib, m)
				}
			}
			for _, metric := range []string{"deliveries lost (neither received nor dropped)", "deliveries dropped (full buffer)"} {
				if m := rep.lookup(sc, metric, lib); m == nil || m.Value != 0 {
					t.Errorf("%s / %s / %s: %v, want 0", sc, metric, lib, m)
				}
			}
		}
	}
	for _, want := range []string{"ours÷go-redis PubSub", "messages delivered/s (all subscribers), ours ÷ go-redis", "delivery latency p99 (ms), ours ÷ go-redis"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q", want)
		}
	}
}

// TestLatHist checks the histogram's buckets and quantiles against exact
// values: every bucket holds the values from its low bound to the next
// one's, and a quantile lands within 2 % of the true one.
func TestLatHist(t *testing.T) {
	for _, v := range []int64{0, 1, 63, 64, 65, 127, 128, 1000, 123456, 1 << 30, 1<<40 + 12345} {
		i := latBucket(v)
		if lo, hi := latLow(i), latLow(i+1); float64(v) < lo || float64(v) >= hi {
			t.Errorf("value %d in bucket %d [%v, %v)", v, i, lo, hi)
		}
	}
	var h latHist
	if h.quantile(0.5) != 0 {
		t.Error("empty histogram: quantile not 0")
	}
	for v := int64(1); v <= 100000; v++ {
		h.add(v * 1000) // 1 µs .. 100 ms
	}
	for _, c := range []struct{ q, want float64 }{{0.5, 50e6}, {0.99, 99e6}} {
		if got := h.quantile(c.q); got < c.want*0.98 || got > c.want*1.02 {
			t.Errorf("quantile(%v) = %v, want ≈ %v", c.q, got, c.want)
		}
	}
	var m latHist
	m.merge(&h)
	if m.quantile(0.5) != h.quantile(0.5) {
		t.Error("merge changed the quantile")
	}
}
