package leakcheck

import (
	"strings"
	"testing"
	"time"
)

func blocked(ch chan struct{}) { <-ch }

// TestSettle: a goroutine started after the snapshot is reported, with its
// top function, until it ends or is ignored by name; those running at the
// snapshot never are.
func TestSettle(t *testing.T) {
	old := make(chan struct{})
	go blocked(old)
	defer close(old)
	before := Current()

	ch := make(chan struct{})
	go blocked(ch)

	cases := []struct {
		name   string
		ignore []string
		want   int
	}{
		{"reported", nil, 1},
		{"ignored by its top function", []string{"github.com/goredisson/redisson/internal/leakcheck.blocked"}, 0},
		{"another name ignored", []string{"internal/poll.runtime_pollWait"}, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			left := settle(before, tc.ignore, 50*time.Millisecond)
			if len(left) != tc.want {
				t.Fatalf("got %d goroutines left, want %d:\n%s", len(left), tc.want, stacks(left))
			}
			if tc.want == 1 && left[0].top != "github.com/goredisson/redisson/internal/leakcheck.blocked" {
				t.Fatalf("top function %q", left[0].top)
			}
		})
	}

	close(ch)
	if left := settle(before, nil, wait); len(left) != 0 {
		t.Fatalf("an ended goroutine is still reported:\n%s", stacks(left))
	}
}

// TestParse: the header and the first frame of a dump record.
func TestParse(t *testing.T) {
	cases := []struct {
		rec, top string
		id       uint64
		ok       bool
	}{
		{"goroutine 7 [chan receive]:\nmain.worker(0xc000012345, {0x1, 0x2})\n\t/x/main.go:12 +0x2c", "main.worker", 7, true},
		{"goroutine 12 [IO wait, 3 minutes]:\ninternal/poll.runtime_pollWait(0x7f, 0x72)\n\t/go/src/runtime/netpoll.go:351 +0x85", "internal/poll.runtime_pollWait", 12, true},
		{"goroutine 3 [select]:\npkg.(*Hub).run(0xc000100000)\n\t/x/hub.go:1", "pkg.(*Hub).run", 3, true},
		{"not a record", "", 0, false},
	}
	for _, tc := range cases {
		g, ok := parse(tc.rec)
		if ok != tc.ok || g.top != tc.top || g.id != tc.id {
			t.Errorf("parse(%q) = %+v, %v; want top %q id %d ok %v", strings.SplitN(tc.rec, "\n", 2)[0], g, ok, tc.top, tc.id, tc.ok)
		}
	}
}
