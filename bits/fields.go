package bits

import (
	"context"

	"github.com/goredisson/redisson/internal/core"
)

// bitfield sends one BITFIELD sub-command (GET, SET or INCRBY) on a field of
// the given type at bit offset and returns its reply: the value, or the old
// value for SET.
func (b *BitSet) bitfield(ctx context.Context, op, sub string, signed bool, size int, offset int64, arg ...int64) (int64, error) {
	if err := b.base.Check(ctx, op); err != nil {
		return 0, err
	}
	if err := b.index(op, offset); err != nil {
		return 0, err
	}
	t, err := b.field(op, signed, size)
	if err != nil {
		return 0, err
	}
	args := []any{"bitfield", b.base.Name(), sub, t, offset}
	for _, a := range arg {
		args = append(args, a)
	}
	res, err := b.base.Redis().Do(ctx, args...).Int64Slice()
	if err != nil {
		return 0, b.base.Fail(ctx, op, err)
	}
	if len(res) != 1 {
		return 0, nil
	}
	return res[0], nil
}

// GetSigned reads the signed field of size bits (1 to 64) at bit offset
// (BITFIELD GET i<size>).
func (b *BitSet) GetSigned(ctx context.Context, size int, offset int64) (int64, error) {
	if b == nil {
		return 0, core.NilHandle(kind, "get signed")
	}
	return b.bitfield(ctx, "get signed", "GET", true, size, offset)
}

// SetSigned writes the signed field and returns its old value (BITFIELD
// SET i<size>).
func (b *BitSet) SetSigned(ctx context.Context, size int, offset, v int64) (int64, error) {
	if b == nil {
		return 0, core.NilHandle(kind, "set signed")
	}
	return b.bitfield(ctx, "set signed", "SET", true, size, offset, v)
}

// IncrementSigned adds delta to the signed field (wrapping on overflow, as
// Redis does by default) and returns the new value (BITFIELD INCRBY).
func (b *BitSet) IncrementSigned(ctx context.Context, size int, offset, delta int64) (int64, error) {
	if b == nil {
		return 0, core.NilHandle(kind, "increment signed")
	}
	return b.bitfield(ctx, "increment signed", "INCRBY", true, size, offset, delta)
}

// GetUnsigned reads the unsigned field of size bits (1 to 63) at bit
// offset (BITFIELD GET u<size>).
func (b *BitSet) GetUnsigned(ctx context.Context, size int, offset int64) (int64, error) {
	if b == nil {
		return 0, core.NilHandle(kind, "get unsigned")
	}
	return b.bitfield(ctx, "get unsigned", "GET", false, size, offset)
}

// SetUnsigned writes the unsigned field and returns its old value
// (BITFIELD SET u<size>).
func (b *BitSet) SetUnsigned(ctx context.Context, size int, offset, v int64) (int64, error) {
	if b == nil {
		return 0, core.NilHandle(kind, "set unsigned")
	}
	return b.bitfield(ctx, "set unsigned", "SET", false, size, offset, v)
}

// IncrementUnsigned adds delta to the unsigned field and returns the new
// value (BITFIELD INCRBY).
func (b *BitSet) IncrementUnsigned(ctx context.Context, size int, offset, delta int64) (int64, error) {
	if b == nil {
		return 0, core.NilHandle(kind, "increment unsigned")
	}
	return b.bitfield(ctx, "increment unsigned", "INCRBY", false, size, offset, delta)
}

// GetByte reads the byte-wide signed field at bit offset (Java's getByte:
// BITFIELD GET i8).
func (b *BitSet) GetByte(ctx context.Context, offset int64) (int8, error) {
	if b == nil {
		return 0, core.NilHandle(kind, "get byte")
	}
	n, err := b.bitfield(ctx, "get byte", "GET", true, 8, offset)
	return int8(n), err
}

// SetByte writes the byte-wide field at bit offset and returns its old
// value (Java's setByte: BITFIELD SET i8).
func (b *BitSet) SetByte(ctx context.Context, offset int64, v int8) (int8, error) {
	if b == nil {
		return 0, core.NilHandle(kind, "set byte")
	}
	n, err := b.bitfield(ctx, "set byte", "SET", true, 8, offset, int64(v))
	return int8(n), err
}

// op sends BITOP with the bit set as destination and first source, and
// the other bit sets' names after it; the reply is the result's length in
// bytes.
func (b *BitSet) op(ctx context.Context, op, name string, others []string) (int64, error) {
	if err := b.base.Check(ctx, op); err != nil {
		return 0, err
	}
	args := []any{"bitop", name, b.base.Name(), b.base.Name()}
	for _, o := range others {
		args = append(args, o)
	}
	n, err := b.base.Redis().Do(ctx, args...).Int64()
	if err != nil {
		return 0, b.base.Fail(ctx, op, err)
	}
	return n, nil
}

// And stores the bitwise AND of this bit set and the named ones in this one
// and returns its length in bytes (BITOP AND name name others...).
func (b *BitSet) And(ctx context.Context, others ...string) (int64, error) {
	if b == nil {
		return 0, core.NilHandle(kind, "and")
	}
	return b.op(ctx, "and", "AND", others)
}

// Or is And with a bitwise OR (BITOP OR).
func (b *BitSet) Or(ctx context.Context, others ...string) (int64, error) {
	if b == nil {
		return 0, core.NilHandle(kind, "or")
	}
	return b.op(ctx, "or", "OR", others)
}

// Xor is And with a bitwise XOR (BITOP XOR).
func (b *BitSet) Xor(ctx context.Context, others ...string) (int64, error) {
	if b == nil {
		return 0, core.NilHandle(kind, "xor")
	}
	return b.op(ctx, "xor", "XOR", others)
}

// Not inverts every stored bit (whole bytes) and returns the length in
// bytes (BITOP NOT name name).
func (b *BitSet) Not(ctx context.Context) (int64, error) {
	if b == nil {
		return 0, core.NilHandle(kind, "not")
	}
	return b.op(ctx, "not", "NOT", nil)
}
