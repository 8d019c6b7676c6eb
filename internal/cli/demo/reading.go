package demo

import (
	"fmt"
	"strings"
)

// The labels of the report's two closing lines.
const (
	readingLabel = "reading: "
	nextLabel    = "next:    "
)

// nextSteps is the closing line: what to run or read after the demo.
const nextSteps = nextLabel + "make bench (against redsync, redislock, rueidislock) · " +
	"make install, then redisson dashboard (every lock live) · " +
	"docs/waiting.md (hand-off) · redisson demo --help (every figure)"

// reading returns the report's two closing lines: what the figures above
// owe to local hand-offs, as measured in this run, and what to run next.
// workers is the goroutines per process; lockRT the lock's round trips per
// acquisition.
func reading(h handOffs, ops, workers int, lockRT float64) [2]string {
	const what = "an unlock gave the lock to a goroutine waiting in the same process, which sent Redis nothing"
	var b strings.Builder
	b.WriteString(readingLabel)
	if h.handedOver == 0 {
		fmt.Fprintf(&b, "no acquisition was a local hand-off (%s)", what)
		if workers == 1 {
			b.WriteString(": with one goroutine per process nobody waits in the releasing process")
		} else {
			b.WriteString(": every one took the lock from Redis")
		}
		return [2]string{b.String(), nextSteps}
	}
	fmt.Fprintf(&b, "%.0f%% of the acquisitions (%d of %d) were local hand-offs: %s",
		100*float64(h.handedOver)/float64(ops), h.handedOver, ops, what)
	if len(h.local) > 0 {
		fmt.Fprintf(&b, "; hand-off p50 %s for those", fmtDur(quantile(h.local, 0.5)))
		if len(h.other) > 0 {
			fmt.Fprintf(&b, ", %s for the %d others", fmtDur(quantile(h.other, 0.5)), len(h.other))
		}
	}
	if lockRT < 1 {
		fmt.Fprintf(&b, "; so under one lock round trip per acquisition (%.2f)", lockRT)
	}
	return [2]string{b.String(), nextSteps}
}
