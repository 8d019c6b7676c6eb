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
	if c == nil {
		return value.NewBucket[T](nil, name, cd) // fails with ErrInvalidArgument
	}
	return value.NewBucket[T](c.Redis(), name, cd, c.valueLifetime())
}

// AtomicLong returns the counter called name (Redisson's
// getAtomicLong(name)): a decimal string under the key name. After Close
// every call fails with ErrClosed.
func (c *Client) AtomicLong(name string) *value.AtomicLong {
	if c == nil {
		return value.NewAtomicLong(nil, name) // fails with ErrInvalidArgument
	}
	return value.NewAtomicLong(c.Redis(), name, c.valueLifetime())
}

// valueLifetime ends value objects with the client: rt.Lifetime() is cancelled
// with cause ErrClosed by Close.
func (c *Client) valueLifetime() value.Option { return value.WithLifetime(c.rt.Lifetime()) }
