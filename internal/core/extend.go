package core

import "time"

// Extended records that the owner's lease on key was set to ttl by a
// request sent at start (a multi-lock's PEXPIRE of a member it took with a
// provisional lease): the owner's lease now runs until start+ttl, is
// renewed from there (watchdog) or signals its loss before then (fixed),
// and a partial unlock re-applies ttl. It reports false when the owner
// holds nothing of key here any more (nothing is changed then).
func (rt *Runtime) Extended(key, owner string, start time.Time, ttl time.Duration) bool {
	hs := &rt.holds
	hs.mu.Lock()
	defer hs.mu.Unlock()
	o := hs.m[holdKey{key, owner}]
	if o == nil || o.lease == nil {
		return false
	}
	o.ttl = ttl
	rt.wheel.Reset(o.lease, start, ttl)
	return true
}
