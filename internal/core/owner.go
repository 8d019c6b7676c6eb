package core

import (
	"math"
	"math/rand/v2"
)

// Go has no thread ids, so an owner (Redisson's thread) is an int64 the
// caller keeps or the library picks. It is combined with each client's id
// into the hash field "<client id>:<owner id>", so one owner id serves every
// lock of every client, as a Java thread id does.

// NewOwnerID returns a random positive owner id. Random 63-bit ids make
// collisions negligible without any shared counter.
func NewOwnerID() int64 {
	return rand.Int64N(math.MaxInt64-1) + 1
}
