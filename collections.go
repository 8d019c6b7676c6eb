package redisson

import (
	"github.com/goredisson/redisson/codec"
	"github.com/goredisson/redisson/collection"
)

// NewMap returns the map called name (Redisson's getMap(name, codec)): a
// hash under the key name whose fields are keys of type K and whose values
// are of type V, both encoded with cd, which must match the codec of the
// Java services sharing it (see package codec). collection.WithKeyCodec
// gives the keys a codec of their own (Java's CompositeCodec). A Go method
// cannot have type parameters, hence a function. After c.Close every call
// fails with ErrClosed.
func NewMap[K comparable, V any](c *Client, name string, cd codec.Codec, opts ...collection.MapOption) *collection.Map[K, V] {
	return collection.NewMap[K, V](c.Source(), name, cd, opts...)
}

// NewList returns the list called name (Redisson's getList(name, codec)):
// a Redis list of elements of type T encoded with cd.
func NewList[T any](c *Client, name string, cd codec.Codec) *collection.List[T] {
	return collection.NewList[T](c.Source(), name, cd)
}

// NewSet returns the set called name (Redisson's getSet(name, codec)): a
// Redis set of members of type T encoded with cd.
func NewSet[T any](c *Client, name string, cd codec.Codec) *collection.Set[T] {
	return collection.NewSet[T](c.Source(), name, cd)
}

// NewScoredSortedSet returns the sorted set called name (Redisson's
// getScoredSortedSet(name, codec)): a Redis sorted set of members of type
// T encoded with cd, each with a score.
func NewScoredSortedSet[T any](c *Client, name string, cd codec.Codec) *collection.ScoredSortedSet[T] {
	return collection.NewScoredSortedSet[T](c.Source(), name, cd)
}
