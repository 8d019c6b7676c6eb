// Package bits is Redisson's RBitSet: a bit set stored as a Redis string,
// bit 0 the highest bit of the first byte (Redis' SETBIT order), that Go and
// Java services share. It sends Redisson's commands: SETBIT, GETBIT,
// BITCOUNT, STRLEN, BITFIELD, BITOP and DEL, and the same script for
// Length.
//
// Handles are cheap, hold no state besides the name and are safe for
// concurrent use. Every call takes a context first and returns the errors of
// package redisson: ErrInvalidName for an empty name, ErrInvalidArgument for
// a negative index or a bad field width, ErrWrongType when the key holds
// another Redis type, ErrClosed after the Client's Close.
package bits

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/internal/objbase"
	"github.com/goredisson/redisson/source"
)

// BitSet is Redisson's RBitSet on the key name.
type BitSet struct {
	base objbase.Base
}

// kind names the bit set in errors (`bit set "<name>": <op>: <cause>`).
const kind = "bit set"

// New returns the bit set called name of src's client
// ((*redisson.Client).BitSet). An empty name or a nil or zero src gives a
// handle whose every call fails (ErrInvalidName, ErrInvalidArgument).
func New(src *source.Source, name string) *BitSet {
	return &BitSet{base: objbase.New(objbase.Kind{Name: kind, Type: "string"}, src, name)}
}

// Name returns the bit set's name, which is also its key.
func (b *BitSet) Name() string {
	if b == nil {
		return *new(string)
	}
	return b.base.Name()
}

func bit(v bool) int {
	if v {
		return 1
	}
	return 0
}

// Get reports whether bit i is set (GETBIT).
func (b *BitSet) Get(ctx context.Context, i int64) (bool, error) {
	if b == nil {
		return false, core.NilHandle(kind, "get")
	}
	const op = "get"
	if err := b.base.Check(ctx, op); err != nil {
		return false, err
	}
	if err := b.index(op, i); err != nil {
		return false, err
	}
	n, err := b.base.Redis().GetBit(ctx, b.base.Name(), i).Result()
	if err != nil {
		return false, b.base.Fail(ctx, op, err)
	}
	return n == 1, nil
}

// Set sets bit i to v and returns its previous value (SETBIT).
func (b *BitSet) Set(ctx context.Context, i int64, v bool) (bool, error) {
	if b == nil {
		return false, core.NilHandle(kind, "set")
	}
	const op = "set"
	if err := b.base.Check(ctx, op); err != nil {
		return false, err
	}
	if err := b.index(op, i); err != nil {
		return false, err
	}
	n, err := b.base.Redis().SetBit(ctx, b.base.Name(), i, bit(v)).Result()
	if err != nil {
		return false, b.base.Fail(ctx, op, err)
	}
	return n == 1, nil
}

// SetRange sets the bits from (inclusive) to to (exclusive) to v, one
// SETBIT each in one pipeline, as Redisson's batch sends them (not atomic).
func (b *BitSet) SetRange(ctx context.Context, from, to int64, v bool) error {
	if b == nil {
		return core.NilHandle(kind, "set range")
	}
	const op = "set range"
	if err := b.base.Check(ctx, op); err != nil {
		return err
	}
	if err := b.index(op, from); err != nil {
		return err
	}
	if to < from {
		return b.base.Named(op, fmt.Errorf("%w: range end %d before its start %d", core.ErrInvalidArgument, to, from))
	}
	if from == to {
		return nil
	}
	_, err := b.base.Redis().Pipelined(ctx, func(p redis.Pipeliner) error {
		for i := from; i < to; i++ {
			p.SetBit(ctx, b.base.Name(), i, bit(v))
		}
		return nil
	})
	return b.base.Fail(ctx, op, err)
}

// GetMany reports the bits at the indexes, in their order (BITFIELD GET u1
// each, one command).
func (b *BitSet) GetMany(ctx context.Context, indexes ...int64) ([]bool, error) {
	if b == nil {
		return nil, core.NilHandle(kind, "get many")
	}
	return b.many(ctx, "get many", "get", indexes, nil)
}

// SetMany sets the bits at the indexes to v (BITFIELD SET u1 each, one
// command: atomic).
func (b *BitSet) SetMany(ctx context.Context, v bool, indexes ...int64) error {
	if b == nil {
		return core.NilHandle(kind, "set many")
	}
	_, err := b.many(ctx, "set many", "set", indexes, []any{bit(v)})
	return err
}

func (b *BitSet) many(ctx context.Context, op, sub string, indexes []int64, value []any) ([]bool, error) {
	if err := b.base.Check(ctx, op); err != nil {
		return nil, err
	}
	if len(indexes) == 0 {
		return nil, nil
	}
	args := []any{"bitfield", b.base.Name()}
	for _, i := range indexes {
		if err := b.index(op, i); err != nil {
			return nil, err
		}
		args = append(append(args, sub, "u1", i), value...) // lower case, as Java sends these
	}
	res, err := b.base.Redis().Do(ctx, args...).Int64Slice()
	if err != nil {
		return nil, b.base.Fail(ctx, op, err)
	}
	out := make([]bool, len(res))
	for i, n := range res {
		out[i] = n == 1
	}
	return out, nil
}

// Cardinality returns the number of set bits (BITCOUNT).
func (b *BitSet) Cardinality(ctx context.Context) (int64, error) {
	if b == nil {
		return 0, core.NilHandle(kind, "cardinality")
	}
	return b.count(ctx, "cardinality", func() (int64, error) { return b.base.Redis().BitCount(ctx, b.base.Name(), nil).Result() })
}

// Size returns the number of bits stored: 8 per byte of the string
// (STRLEN), as RBitSet.size.
func (b *BitSet) Size(ctx context.Context) (int64, error) {
	if b == nil {
		return 0, core.NilHandle(kind, "size")
	}
	return b.count(ctx, "size", func() (int64, error) {
		n, err := b.base.Redis().StrLen(ctx, b.base.Name()).Result()
		return n * 8, err
	})
}

// Length returns the index after the highest set bit, 0 when no bit is set
// (Redisson's length script).
func (b *BitSet) Length(ctx context.Context) (int64, error) {
	if b == nil {
		return 0, core.NilHandle(kind, "length")
	}
	return b.count(ctx, "length", func() (int64, error) {
		return lengthScript.Cmd(ctx, b.base.Redis(), []string{b.base.Name()}).Int64()
	})
}

func (b *BitSet) count(ctx context.Context, op string, f func() (int64, error)) (int64, error) {
	if err := b.base.Check(ctx, op); err != nil {
		return 0, err
	}
	n, err := f()
	if err != nil {
		return 0, b.base.Fail(ctx, op, err)
	}
	return n, nil
}

// Bytes returns the stored bytes, nil when the key does not exist (GET;
// Java's toByteArray).
func (b *BitSet) Bytes(ctx context.Context) ([]byte, error) {
	if b == nil {
		return nil, core.NilHandle(kind, "bytes")
	}
	const op = "bytes"
	if err := b.base.Check(ctx, op); err != nil {
		return nil, err
	}
	data, err := b.base.Redis().Get(ctx, b.base.Name()).Bytes()
	if errors.Is(err, redis.Nil) {
		return nil, nil
	}
	if err != nil {
		return nil, b.base.Fail(ctx, op, err)
	}
	return data, nil
}

// SetBits yields the indexes of the set bits in increasing order, from one
// read of the stored bytes (GET); a failed read is yielded once as an
// error.
func (b *BitSet) SetBits(ctx context.Context) iter.Seq2[int64, error] {
	if b == nil {
		return core.NilSeq2[int64](kind, "set bits")
	}
	return func(yield func(int64, error) bool) {
		data, err := b.Bytes(ctx)
		if err != nil {
			yield(0, err)
			return
		}
		for i, c := range data {
			for j := range 8 {
				if c&(0x80>>j) != 0 && !yield(int64(i)*8+int64(j), nil) {
					return
				}
			}
		}
	}
}

// Clear deletes the key: every bit is clear (DEL).
func (b *BitSet) Clear(ctx context.Context) error {
	if b == nil {
		return core.NilHandle(kind, "clear")
	}
	const op = "clear"
	if err := b.base.Check(ctx, op); err != nil {
		return err
	}
	return b.base.Fail(ctx, op, b.base.Redis().Del(ctx, b.base.Name()).Err())
}

// RemainTTL returns the key's remaining time to live (PTTL), -2 (ns) when
// it does not exist, -1 when it has no expiry.
func (b *BitSet) RemainTTL(ctx context.Context) (time.Duration, error) {
	if b == nil {
		return 0, core.NilHandle(kind, "remain ttl")
	}
	const op = "remain TTL"
	if err := b.base.Check(ctx, op); err != nil {
		return 0, err
	}
	d, err := b.base.Redis().PTTL(ctx, b.base.Name()).Result()
	if err != nil {
		return 0, b.base.Fail(ctx, op, err)
	}
	return d, nil
}

// field checks a BITFIELD type: signed up to 64 bits, unsigned up to 63.
func (b *BitSet) field(op string, signed bool, size int) (string, error) {
	t, limit := "u", 63
	if signed {
		t, limit = "i", 64
	}
	if size < 1 || size > limit {
		return "", b.base.Named(op, fmt.Errorf("%w: a %s field is 1 to %d bits, got %d", core.ErrInvalidArgument, map[bool]string{true: "signed", false: "unsigned"}[signed], limit, size))
	}
	return t + strconv.Itoa(size), nil
}

// index refuses a negative bit index, as java.util.BitSet does.
func (b *BitSet) index(op string, i int64) error {
	if i < 0 {
		return b.base.Named(op, fmt.Errorf("%w: negative bit index %d", core.ErrInvalidArgument, i))
	}
	return nil
}
