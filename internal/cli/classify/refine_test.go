package classify_test

import (
	"testing"

	"github.com/goredisson/redisson/internal/cli/classify"
)

// TestRefine: the holders' registration records name the lock kinds that
// share a hash's shape, and Base gives back the kind whose keys they keep.
func TestRefine(t *testing.T) {
	for _, tc := range []struct {
		kind   string
		heldAs []string
		want   string
		base   string
	}{
		{classify.Lock, nil, classify.Lock, classify.Lock},
		{classify.Lock, []string{"lock"}, classify.Lock, classify.Lock},
		{classify.Lock, []string{"fair lock"}, classify.FairLock, classify.FairLock},
		{classify.Lock, []string{"spin lock"}, classify.SpinLock, classify.Lock},
		{classify.Lock, []string{"non-reentrant lock"}, classify.NonReentrantLock, classify.Lock},
		// A non-reentrant fair lock nobody waits for has no queue key.
		{classify.Lock, []string{"non-reentrant fair lock"}, classify.NonReentrantFairLock, classify.FairLock},
		{classify.FairLock, []string{"non-reentrant fair lock"}, classify.NonReentrantFairLock, classify.FairLock},
		// The fair lock's keys are no spin lock's, whatever a record says.
		{classify.FairLock, []string{"spin lock"}, classify.FairLock, classify.FairLock},
		{classify.FairLock, []string{"lock"}, classify.FairLock, classify.FairLock},
		{classify.RWLock, []string{"spin lock"}, classify.RWLock, classify.RWLock},
		{classify.Semaphore, []string{"non-reentrant lock"}, classify.Semaphore, classify.Semaphore},
	} {
		got := classify.Refine(tc.kind, tc.heldAs)
		if got != tc.want {
			t.Errorf("Refine(%q, %q) = %q, want %q", tc.kind, tc.heldAs, got, tc.want)
		}
		if b := classify.Base(got); b != tc.base {
			t.Errorf("Base(%q) = %q, want %q", got, b, tc.base)
		}
	}
}
