package engine

import (
	"fmt"

	"github.com/goredisson/redisson/internal/core"
)

// A non-reentrant kind (Config.NonReentrant) keeps one acquisition per
// owner field in this client at a time, from its first try until it ends
// without the lock or its hold ends. Redis alone cannot tell a hold apart
// from a second acquisition of the same owner: when a try's reply is lost,
// the recovery reads the owner's count, and a count of 1 is then either
// the lost try's hold or one the owner had already, whose handle the
// caller would be given a second time. Refusing the second acquisition
// here, before anything is sent, leaves the recovery one acquisition to
// account for.

// claim marks field as acquiring the lock, or returns ErrNonReentrant
// when it holds the lock through this client or another acquisition of it
// is under way. The caller unclaims a claim it got.
func (l *Lock) claim(field string) error {
	k := undoKey{l.cfg.Name, field}
	e := l.e
	e.claimMu.Lock()
	defer e.claimMu.Unlock()
	_, acquiring := e.claims[k]
	if acquiring || l.rt.Holds().Holding(l.cfg.Name, field) {
		return core.Final(fmt.Errorf("%w: owner field %s holds it or is acquiring it in this client", core.ErrNonReentrant, field))
	}
	if e.claims == nil {
		e.claims = make(map[undoKey]struct{})
	}
	e.claims[k] = struct{}{}
	return nil
}

// unclaim ends field's claim. A hold it registered keeps the owner out
// from then on (Holding), until it ends.
func (l *Lock) unclaim(field string) {
	e := l.e
	e.claimMu.Lock()
	defer e.claimMu.Unlock()
	delete(e.claims, undoKey{l.cfg.Name, field})
}

// adoptable reports whether the recovery of a lost try may take a count it
// reads for field as that try's hold. Not for a non-reentrant kind while
// field holds the lock through this client: the count is that hold's, and
// the lost try, which the script refuses for a holder, took nothing.
func (l *Lock) adoptable(field string) bool {
	return !l.cfg.NonReentrant || !l.rt.Holds().Holding(l.cfg.Name, field)
}
