// Package bloom is Redisson's RBloomFilter: a Bloom filter whose bits are
// the string key name and whose size and hash count are the hash
// {name}:config, written once by TryInit. The bit indexes are computed by
// the client from Redisson's 128-bit HighwayHash of the element's codec
// bytes, so an element a Java service added is found by Go and the other
// way round, as long as both use the same codec (StringCodec: the UTF-8
// bytes).
//
// A handle keeps the size and hash count it last learnt (its own TryInit,
// or {name}:config read on first use, as Redisson's instances do); every
// script checks them against {name}:config, so a handle never sets bits
// under another config: Add fails with ErrConfigChanged and Contains
// answers false. Handles are safe for concurrent use. Every call takes a
// context first and returns the errors of package redisson: ErrInvalidName
// for an empty name, ErrInvalidArgument for a nil codec, a nil element or
// a bad TryInit argument, ErrWrongType when a key holds another Redis
// type, ErrClosed after the Client's Close; ErrNotInitialized before
// TryInit; codec errors wrap codec.ErrEncode.
package bloom

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"sync"

	"github.com/goredisson/redisson/codec"
	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/internal/highway"
	"github.com/goredisson/redisson/internal/javanum"
	"github.com/goredisson/redisson/internal/objbase"
	"github.com/goredisson/redisson/keys"
	"github.com/goredisson/redisson/source"
)

// maxSize is the most bits Redisson allows (Integer.MAX_VALUE*2): Redis'
// strings hold 2^32 bits.
const maxSize = math.MaxInt32 * 2

// BloomFilter is Redisson's RBloomFilter<T> on the keys name and
// {name}:config.
type BloomFilter[T any] struct {
	base   objbase.Base
	config string // {name}:config
	codec  codec.Codec

	mu     sync.Mutex
	size   int64 // 0: not learnt yet
	hashes int
}

// New returns the Bloom filter called name of src's client, its elements
// encoded with c (redisson.NewBloomFilter; Java: getBloomFilter(name,
// codec)). An empty name, a name whose {name}:config key hashes to
// another cluster slot, a nil or zero src or a nil codec gives a handle
// whose every call fails (ErrInvalidName, ErrInvalidArgument).
func New[T any](src *source.Source, name string, c codec.Codec) *BloomFilter[T] {
	b := &BloomFilter[T]{base: objbase.New(objbase.Kind{Name: kind, Type: "string"}, src, name), codec: c}
	b.config = keys.SuffixName(name, "config")
	b.base.Derives(b.config)
	b.base.NeedCodec(c, "codec")
	return b
}

// Name returns the filter's name, which is also the key of its bits.
func (b *BloomFilter[T]) Name() string {
	if b == nil {
		return *new(string)
	}
	return b.base.Name()
}

// Sizing returns Redisson's size in bits and hash count for n expected
// insertions at false-positive probability p: ⌊−n·ln p / ln²2⌋ bits and
// max(1, round(bits/n·ln 2)) hashes. A p of 0 counts as the smallest
// positive float64, as in Java.
func Sizing(n int64, p float64) (size int64, hashes int) {
	if p == 0 {
		p = math.SmallestNonzeroFloat64
	}
	size = int64(-float64(n) * math.Log(p) / (math.Ln2 * math.Ln2))
	h := int(javaRound(float64(size) / float64(n) * math.Ln2))
	return size, max(1, h)
}

// javaRound is Java's Math.round: the nearest integer, halves up.
func javaRound(x float64) int64 { return int64(math.Floor(x + 0.5)) }

// TryInit writes the filter's config for expectedInsertions elements at
// falseProbability (0 < p <= 1) unless one exists, and reports whether it
// did (Redisson's tryInit). Either way this handle then uses the size and
// hash count it computed, as Redisson's instance does: when another config
// won, its Add fails with ErrConfigChanged (make a new handle).
func (b *BloomFilter[T]) TryInit(ctx context.Context, expectedInsertions int64, falseProbability float64) (bool, error) {
	if b == nil {
		return false, core.NilHandle(kind, "try init")
	}
	const op = "try init"
	if err := b.base.Check(ctx, op); err != nil {
		return false, err
	}
	if expectedInsertions <= 0 || math.IsNaN(falseProbability) || falseProbability < 0 || falseProbability > 1 {
		return false, b.base.Named(op, fmt.Errorf("%w: expected insertions %d must be > 0 and the false probability %v within [0, 1]",
			core.ErrInvalidArgument, expectedInsertions, falseProbability))
	}
	size, hashes := Sizing(expectedInsertions, falseProbability)
	if size <= 0 || size > maxSize {
		return false, b.base.Named(op, fmt.Errorf("%w: the computed size %d bits is not within [1, %d]", core.ErrInvalidArgument, size, int64(maxSize)))
	}
	b.mu.Lock()
	b.size, b.hashes = size, hashes
	b.mu.Unlock()
	n, err := tryInitScript.Run(ctx, b.base.Redis(), []string{b.config}, size, hashes, expectedInsertions, javanum.JavaDouble(falseProbability))
	if err != nil {
		return false, b.fail(ctx, op, err)
	}
	return n == int64(1), nil
}

// learnt returns the size and hash count this handle uses, reading
// {name}:config (HGETALL) when it has none yet.
func (b *BloomFilter[T]) learnt(ctx context.Context, op string) (int64, int, error) {
	b.mu.Lock()
	size, hashes := b.size, b.hashes
	b.mu.Unlock()
	if size > 0 {
		return size, hashes, nil
	}
	return b.readConfig(ctx, op)
}

// readConfig reads {name}:config and keeps its size and hash count.
func (b *BloomFilter[T]) readConfig(ctx context.Context, op string) (int64, int, error) {
	cfg, err := b.base.Redis().HGetAll(ctx, b.config).Result()
	if err != nil {
		return 0, 0, b.fail(ctx, op, err)
	}
	size, err1 := strconv.ParseInt(cfg["size"], 10, 64)
	hashes, err2 := strconv.Atoi(cfg["hashIterations"])
	if cfg["size"] == "" || cfg["hashIterations"] == "" {
		return 0, 0, b.base.Named(op, ErrNotInitialized)
	}
	if err1 != nil || err2 != nil || size <= 0 || hashes <= 0 {
		return 0, 0, b.base.Named(op, fmt.Errorf("%w: %s holds size %q, hashIterations %q", core.ErrWrongType, b.config, cfg["size"], cfg["hashIterations"]))
	}
	b.mu.Lock()
	b.size, b.hashes = size, hashes
	b.mu.Unlock()
	return size, hashes, nil
}

// Indexes returns the bit indexes of an element's codec bytes for a filter
// of size bits and hashes hash functions, as Redisson computes them: h1, h2
// the HighwayHash-128 words as Java longs, index i the non-negative part of
// h modulo size, h starting at h1 and adding h2 and h1 in turn.
func Indexes(encoded []byte, size int64, hashes int) []int64 {
	hw := highway.Hash128(highway.RedissonKey, encoded)
	h1, h2 := int64(hw[0]), int64(hw[1])
	out := make([]int64, hashes)
	h := h1
	for i := range out {
		out[i] = (h & math.MaxInt64) % size
		if i%2 == 0 {
			h += h2
		} else {
			h += h1
		}
	}
	return out
}

// indexArgs encodes vs and appends their indexes to args.
func (b *BloomFilter[T]) indexArgs(op string, args []any, vs []T, size int64, hashes int) ([]any, error) {
	for _, v := range vs {
		data, err := b.codec.Encode(v)
		if err != nil {
			return nil, b.base.Named(op, err)
		}
		for _, i := range Indexes(data, size, hashes) {
			args = append(args, i)
		}
	}
	return args, nil
}

// noNil refuses a nil element before anything is sent.
func (b *BloomFilter[T]) noNil(op string, vs []T) error {
	for _, v := range vs {
		if objbase.IsNull(v) {
			return b.base.Named(op, fmt.Errorf("%w: an element must not be nil", core.ErrInvalidArgument))
		}
	}
	return nil
}
