package core

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"sync/atomic"
)

// requestIDs makes unlock request ids: 32 lowercase hex characters like
// Redisson's, unique per request. A random per-client prefix and a counter
// avoid a random read per unlock.
type requestIDs struct {
	prefix string
	n      atomic.Uint64
}

func (r *requestIDs) init() {
	var b [8]byte
	_, _ = rand.Read(b[:])
	r.prefix = hex.EncodeToString(b[:])
}

// RequestID returns a new unlock request id (the unlock latch's suffix).
func (rt *Runtime) RequestID() string {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], rt.requests.n.Add(1))
	return rt.requests.prefix + hex.EncodeToString(b[:])
}
