package handle

import (
	"time"

	"github.com/goredisson/redisson/internal/engine"
)

// Hold is locks.Hold: the engine's hold of one acquisition. The lock
// kinds acquire into it and the fenced lock reads its token from it.
type Hold struct {
	h engine.Hold
}

// Engine returns the engine's hold inside h; nil for a nil h.
func (h *Hold) Engine() *engine.Hold {
	if h == nil {
		return nil
	}
	return &h.h
}

// LockOptions are the options of one lock acquisition, which locks.Option
// sets: package locks declares Option as a func of a pointer to them
// under an unexported alias, so that the lock kinds (internal/lockkit) can
// apply a []locks.Option while users cannot name what it changes.
type LockOptions struct {
	Lease, Wait                 time.Duration
	Owner                       int64
	HasLease, HasWait, HasOwner bool
}
