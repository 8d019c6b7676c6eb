package redisson

import (
	"github.com/goredisson/redisson/codec"
	"github.com/goredisson/redisson/localcache"
)

// NewLocalCachedMap returns the local cached map called name (Redisson's
// getLocalCachedMap(name, codec, options)): the hash name in Redis, keys K
// and values V encoded with cd, with a near cache in this process kept
// coherent with every Java and Go instance through Redisson's messages on
// {name}:topic. The zero localcache.Options are Redisson's defaults. Close
// the map when done; after c.Close every call fails with ErrClosed.
func NewLocalCachedMap[K comparable, V any](c *Client, name string, cd codec.Codec, o localcache.Options) *localcache.LocalCachedMap[K, V] {
	return localcache.New[K, V](c.Source(), name, cd, o)
}
