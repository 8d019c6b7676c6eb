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
// module version of the build) and Go version, each hold (lock key, owner
// field, since when), the semaphore permits it took and has not given back
// (by semaphore; a permit-expirable semaphore's by id), how many
// goroutines wait on each channel, the time
// of the write (the client's last-seen time) and the refresh period. It is
// written in the background when the client starts, after its holds or
// permits change (at most 4 writes a second) and every refresh period: WatchdogTimeout/3,
// between 1 s and 5 s (5 s by default). Tools show the holds of a client
// not seen for two periods (at least one period and 3 s) as a gone
// client's. The record expires 15 minutes after the last write (a
// tombstone: a process that died without Close is shown as gone, not as
// unknown, while its holds and queue entries may still be in Redis);
// Close deletes it. A lock call only drops a token in a channel: no Redis
// call, no allocation. Failed writes are logged (Warn, then Debug while
// they keep failing) and never fail a call. Java peers never read the
// key.
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

// registrationMaxPeriod bounds it from above: tools tell a dead client
// from a live one after about two periods, and one write every 5 s is
// cheap.
const registrationMaxPeriod = 5 * time.Second

// startRegistration starts publishing the client's record and returns
// what stops it and removes the record (bounded by Options.Timeout).
func startRegistration(rt *core.Runtime, o Options) func() {
	if o.Registration.Disabled || rt.Redis() == nil {
		return func() {}
	}
	period := min(max(o.WatchdogTimeout/3, registrationMinPeriod), registrationMaxPeriod)
	r := registry.Start(registry.Config{
		Redis:          rt.Redis(),
		ID:             rt.ID(),
		Version:        Version,
		Held:           rt.Holds().Held,
		Changed:        rt.Holds().HeldChanged(),
		Waiters:        rt.Hub().WaitersByChannel,
		WaitersChanged: rt.Hub().WaitersChanged(),
		Permits: func() []registry.PermitHold {
			held := rt.Permits().Held()
			out := make([]registry.PermitHold, len(held))
			for i, h := range held {
				out[i] = registry.PermitHold{Key: h.Name, Count: h.Count, IDs: h.IDs}
			}
			return out
		},
		PermitsChanged: rt.Permits().Changed(),
		Period:         period,
		TTL:            max(4*period, registry.Tombstone),
		MinGap:         registrationMinGap,
		Timeout:        o.Timeout,
		Logger:         o.Logger,
	})
	return r.Close
}
