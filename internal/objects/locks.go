package objects

import (
	"time"

	"github.com/goredisson/redisson/internal/engine"
)

// LockOptions are the options of one lock acquisition (package locks'
// Option), read out of the public type so that the internal side can check
// them and turn them into an engine request.
type LockOptions struct {
	Lease, Wait                 time.Duration
	Owner                       int64
	HasLease, HasWait, HasOwner bool
}

// ApplyLockOptions applies opts, a []locks.Option; set by package locks.
var ApplyLockOptions func(opts any) LockOptions

// LockHold returns the engine hold inside h, a *locks.Hold; set by package
// locks. The lock kinds acquire into it and the fenced lock reads its token
// from it, while the public type shows nothing of the engine.
var LockHold func(h any) *engine.Hold
