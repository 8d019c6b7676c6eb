package redisson

import (
	"github.com/goredisson/redisson/adder"
	"github.com/goredisson/redisson/bits"
	"github.com/goredisson/redisson/bloom"
	"github.com/goredisson/redisson/codec"
	"github.com/goredisson/redisson/hll"
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

// NewBuckets returns the buckets of c encoded with cd (Redisson's
// getBuckets(codec)): many buckets read and written in one command (MGET,
// MSET, MSETNX).
func NewBuckets[T any](c *Client, cd codec.Codec) *value.Buckets[T] {
	return value.NewBuckets[T](c.Source(), cd)
}

// AtomicDouble returns the number called name (Redisson's
// getAtomicDouble(name)): a decimal string under the key name.
func (c *Client) AtomicDouble(name string) *value.AtomicDouble {
	return value.NewAtomicDouble(c.Source(), name)
}

// IdGenerator returns the id generator called name (Redisson's
// getIdGenerator(name)). The handle keeps its block of ids: make one and
// share it.
func (c *Client) IdGenerator(name string) *value.IdGenerator {
	return value.NewIdGenerator(c.Source(), name)
}

// BitSet returns the bit set called name (Redisson's getBitSet(name)).
func (c *Client) BitSet(name string) *bits.BitSet {
	return bits.New(c.Source(), name)
}

// NewHyperLogLog returns the HyperLogLog called name, its elements encoded
// with cd (Redisson's getHyperLogLog(name, codec)).
func NewHyperLogLog[T any](c *Client, name string, cd codec.Codec) *hll.HyperLogLog[T] {
	return hll.New[T](c.Source(), name, cd)
}

// NewBloomFilter returns the Bloom filter called name, its elements encoded
// with cd (Redisson's getBloomFilter(name, codec)). The handle keeps the
// filter's size and hash count once learnt: make one and share it.
func NewBloomFilter[T any](c *Client, name string, cd codec.Codec) *bloom.BloomFilter[T] {
	return bloom.New[T](c.Source(), name, cd)
}

// LongAdder returns an adder called name (Redisson's getLongAdder(name)):
// counted locally, summed across every instance of every client (Java's
// too) on Sum. It subscribes until its Close: make one and share it.
func (c *Client) LongAdder(name string) *adder.LongAdder {
	return adder.NewLongAdder(c.Source(), name)
}

// DoubleAdder returns a double adder called name (Redisson's
// getDoubleAdder(name)); see LongAdder.
func (c *Client) DoubleAdder(name string) *adder.DoubleAdder {
	return adder.NewDoubleAdder(c.Source(), name)
}
