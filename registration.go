package redisson

import (
	"time"

	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/internal/registry"
)

// RegistrationOptions configure the client's registration: a record of
// who the client is and what it holds, for operators' tools.
//
// The record is a string key "redisson-go:client:<client id>" holding JSON:
// host, pid, program, start time, library version (Version, and the
// module version of the build) and Go version, and each hold
// (lock key, owner field, since when). It is written in the background
// when the client starts, after its holds change (at most 4 writes a
// second) and every WatchdogTimeout/3 (but not more often than once a
// second), with an expiry of four such periods (4/3 of WatchdogTimeout,
// 40 s by default), so a process that died without Close leaves no record
// behind after about its locks' own lease. Close deletes it. A lock call
// only drops a token in a channel: no Redis call, no allocation. Failed
// writes are logged (Warn, then Debug while they keep failing) and never
// fail a call. Java peers never read the key.
type RegistrationOptions struct {
	// Disabled turns the registration off: no key is written, and tools
	// show this client's holds as held by an unknown client.
	Disabled bool
}

// registrationMinGap is the least time between two record writes: a burst
// of lock calls costs one write.
const registrationMinGap = 250 * time.Millisecond

// registrationMinPeriod bounds the refresh period from below: a client
// with a very short watchdog (tests) does not rewrite its record more
// often than once a second.
const registrationMinPeriod = time.Second

// startRegistration starts publishing the client's record and returns
// what stops it and removes the record (bounded by Options.Timeout).
func startRegistration(rt *core.Runtime, o Options) func() {
	if o.Registration.Disabled || rt.Redis() == nil {
		return func() {}
	}
	period := max(o.WatchdogTimeout/3, registrationMinPeriod)
	r := registry.Start(registry.Config{
		Redis:   rt.Redis(),
		ID:      rt.ID(),
		Version: Version,
		Held:    rt.Holds().Held,
		Changed: rt.Holds().HeldChanged(),
		Period:  period,
		TTL:     4 * period,
		MinGap:  registrationMinGap,
		Timeout: o.Timeout,
		Logger:  o.Logger,
	})
	return r.Close
}
