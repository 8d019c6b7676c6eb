package redisson

import "github.com/goredisson/redisson/internal/core"

// RegistrationOptions configure the client's registration: a record of
// who the client is and what it holds, for operators' tools.
type RegistrationOptions struct {
	// Disabled turns the registration off: no key is written, and tools
	// show this client's holds as held by an unknown client.
	Disabled bool
}

// startRegistration starts publishing the client's record and returns
// what stops it (and removes the record). Placeholder until the record
// is built: it publishes nothing.
func startRegistration(rt *core.Runtime, o Options) func() {
	_, _ = rt, o
	return func() {}
}
