package rlock_test

import (
	"github.com/goredisson/redisson/rlock"
)

// ended reports whether h's Done channel is closed.
func ended(h *rlock.Hold) bool {
	select {
	case <-h.Done():
		return true
	default:
		return false
	}
}
