package redisson

import (
	"github.com/goredisson/redisson/codec"
	"github.com/goredisson/redisson/localcache"
	"github.com/goredisson/redisson/mapcache"
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

// NewMapCache returns the map cache called name (Redisson's
// getMapCache(name, codec)): a map whose entries may each have a TTL and a
// max idle time, keys of type K and values of type V encoded with cd, which
// must match the codec of the Java services sharing it. The client cleans
// up its expired entries (Options.CleanUp) while it runs. After c.Close
// every call fails with ErrClosed.
func NewMapCache[K comparable, V any](c *Client, name string, cd codec.Codec, opts ...mapcache.Option) *mapcache.MapCache[K, V] {
	return mapcache.New[K, V](c.Source(), name, cd, opts...)
}

// NewLocalCachedMap returns the local cached map called name (Redisson's
// getLocalCachedMap(name, codec, options)): the hash name in Redis, keys K
// and values V encoded with cd, with a near cache in this process kept
// coherent with every Java and Go instance through Redisson's messages on
// {name}:topic. The zero localcache.Options are Redisson's defaults. Close
// the map when done; after c.Close every call fails with ErrClosed.
func NewLocalCachedMap[K comparable, V any](c *Client, name string, cd codec.Codec, o localcache.Options) *localcache.LocalCachedMap[K, V] {
	return localcache.New[K, V](c.Source(), name, cd, o)
}
