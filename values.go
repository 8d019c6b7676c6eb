package redisson

import (
	"github.com/goredisson/redisson/codec"
	"github.com/goredisson/redisson/value"
)

// NewBucket returns the bucket called name (Redisson's
// getBucket(name, codec)): one value of type T under the key name, encoded
// with cd, which must match the codec of the Java services sharing it (see
// package codec; Redisson's default Kryo5Codec is Java-only). It runs on the
// client's go-redis client; a Go method cannot have type parameters, hence a
// function. After c.Close every call fails with ErrClosed.
func NewBucket[T any](c *Client, name string, cd codec.Codec) *value.Bucket[T] {
	return value.NewBucket[T](c.Source(), name, cd)
}

// AtomicLong returns the counter called name (Redisson's
// getAtomicLong(name)): a decimal string under the key name. After Close
// every call fails with ErrClosed. It is a method, where NewBucket is a
// function, because it has no type parameter (see the package overview);
// value.NewAtomicLong(c.Source(), name) is the same object.
func (c *Client) AtomicLong(name string) *value.AtomicLong {
	return value.NewAtomicLong(c.Source(), name)
}
