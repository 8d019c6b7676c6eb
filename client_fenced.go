package redisson

import "github.com/goredisson/redisson/fencedlock"

// FencedLock returns the fenced lock called name (Redisson's RFencedLock):
// an RLock whose every acquisition, re-entry included, also gets a fencing
// token from redisson_lock_token:{name}, strictly greater than every token
// handed out before (Hold.Token). Pass the token to the resource you guard
// and let it refuse smaller ones.
func (c *Client) FencedLock(name string) *fencedlock.Lock { return fencedlock.New(c.Source(), name) }
