package multilock

import "time"

// ValidUntil returns when h's validity ends (a RedLock with a fixed lease;
// zero: no validity end).
func ValidUntil(h *Hold) time.Time {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.validUntil
}

// LostMembers returns how many of h's members h has counted as ended
// before Unlock.
func LostMembers(h *Hold) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.lost
}
