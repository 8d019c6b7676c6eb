package ls

import (
	"testing"

	"github.com/goredisson/redisson/internal/cli/classify"
)

// TestKeepKinds: --kind keeps the kind asked for, and a lock family's base
// kind keeps the kinds that keep its keys, not the other way round.
func TestKeepKinds(t *testing.T) {
	for _, tc := range []struct {
		kind, obj string
		alts      []string
		want      bool
	}{
		{classify.Lock, classify.Lock, nil, true},
		{classify.Lock, classify.SpinLock, nil, true},
		{classify.Lock, classify.NonReentrantLock, nil, true},
		{classify.Lock, classify.NonReentrantFairLock, nil, false},
		{classify.FairLock, classify.NonReentrantFairLock, nil, true},
		{classify.FairLock, classify.Lock, nil, false},
		{classify.SpinLock, classify.SpinLock, nil, true},
		{classify.SpinLock, classify.Lock, nil, false},
		{classify.NonReentrantLock, classify.SpinLock, nil, false},
		{classify.Semaphore, classify.SemOrLatch, nil, true},
		{classify.Latch, classify.AtomicLong, []string{classify.Latch}, true},
		{classify.Map, classify.Lock, nil, false},
		{"", classify.Map, nil, true},
	} {
		got := Options{kind: tc.kind}.keep(Object{Kind: tc.obj, Alternatives: tc.alts})
		if got != tc.want {
			t.Errorf("--kind %q on a %q: kept %v, want %v", tc.kind, tc.obj, got, tc.want)
		}
	}
}
