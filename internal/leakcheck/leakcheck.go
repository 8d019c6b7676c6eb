// Package leakcheck finds goroutines a test left running. It reads the
// runtime's own dump of every goroutine (runtime.Stack), so tests need no
// module beyond the four the main module allows.
package leakcheck

import (
	"bytes"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// wait is how long Verify lets goroutines finish: a goroutine told to stop
// by Close may still be on its way out when the test checks.
const wait = 5 * time.Second

// Set is the goroutines running at one moment, by id.
type Set map[uint64]struct{}

// Current returns the goroutines running now; Verify ignores them.
func Current() Set {
	s := make(Set)
	for _, g := range dump() {
		s[g.id] = struct{}{}
	}
	return s
}

// Verify fails t when, within a few seconds, goroutines are still running
// that were not in before, other than those whose top function is one of
// ignoreTop (e.g. "internal/poll.runtime_pollWait" for a connection a
// client closes at cleanup). It lists their stacks.
func Verify(t testing.TB, before Set, ignoreTop ...string) {
	t.Helper()
	if left := settle(before, ignoreTop, wait); len(left) > 0 {
		t.Errorf("leakcheck: %d goroutine(s) left running:\n\n%s", len(left), stacks(left))
	}
}

// Main runs the package's tests and then fails the run, as a failed test
// would, when goroutines the tests started are still running. Use it from
// TestMain.
func Main(m *testing.M) {
	before := Current()
	code := m.Run()
	if code == 0 {
		if left := settle(before, nil, wait); len(left) > 0 {
			fmt.Fprintf(os.Stderr, "leakcheck: %d goroutine(s) left running after the tests:\n\n%s", len(left), stacks(left))
			code = 1
		}
	}
	os.Exit(code)
}

// settle returns the goroutines not in before and not ignored that are
// still running after up to within.
func settle(before Set, ignoreTop []string, within time.Duration) []goroutine {
	deadline := time.Now().Add(within)
	pause := time.Millisecond
	for {
		var left []goroutine
		for _, g := range dump() {
			if _, ok := before[g.id]; ok || g.ignored(ignoreTop) {
				continue
			}
			left = append(left, g)
		}
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
		time.Sleep(pause)
		pause = min(2*pause, 100*time.Millisecond)
	}
}

type goroutine struct {
	id    uint64
	top   string // the function running
	stack string // the whole record, for the report
}

// ignored reports whether g is the test machinery's, the runtime's, or
// named by ignoreTop.
func (g goroutine) ignored(ignoreTop []string) bool {
	for _, f := range ignoreTop {
		if g.top == f {
			return true
		}
	}
	switch g.top {
	case "testing.RunTests", "testing.(*T).Run", "testing.(*T).Parallel", "testing.tRunner",
		"os/signal.signal_recv", "runtime.ensureSigM":
		return true
	}
	return strings.Contains(g.stack, "os/signal.loop") || strings.Contains(g.stack, "runtime/trace.Start")
}

// dump returns every goroutine but the caller's.
func dump() []goroutine {
	buf := make([]byte, 1<<16)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	var out []goroutine
	for i, rec := range bytes.Split(buf, []byte("\n\n")) {
		if i == 0 {
			continue // the caller's own: the dump starts with it
		}
		if g, ok := parse(string(rec)); ok {
			out = append(out, g)
		}
	}
	return out
}

// parse reads one record of the dump:
//
//	goroutine 7 [chan receive]:
//	pkg.fn(...)
//		/path/file.go:12 +0x2c
func parse(rec string) (goroutine, bool) {
	rec = strings.TrimSpace(rec)
	head, rest, _ := strings.Cut(rec, "\n")
	idText, ok := strings.CutPrefix(head, "goroutine ")
	if !ok {
		return goroutine{}, false
	}
	idText, _, _ = strings.Cut(idText, " ")
	id, err := strconv.ParseUint(idText, 10, 64)
	if err != nil {
		return goroutine{}, false
	}
	frame, _, _ := strings.Cut(rest, "\n")
	if i := strings.LastIndex(frame, "("); i > 0 {
		frame = frame[:i]
	}
	return goroutine{id: id, top: frame, stack: rec}, true
}

func stacks(gs []goroutine) string {
	var b strings.Builder
	for _, g := range gs {
		b.WriteString(g.stack)
		b.WriteString("\n\n")
	}
	return b.String()
}
