package redisson

import (
	"github.com/goredisson/redisson/codec"
	"github.com/goredisson/redisson/setcache"
)

// NewSetCache returns the set cache called name (Redisson's
// getSetCache(name, codec)): a sorted set of members of type T encoded
// with cd, each with its own time to live, and starts the client's
// clean-up of its expired members (Options.CleanUp). After c.Close every
// call fails with ErrClosed.
func NewSetCache[T any](c *Client, name string, cd codec.Codec) *setcache.SetCache[T] {
	return setcache.New[T](c.Source(), name, cd)
}
