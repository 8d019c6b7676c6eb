package bloom

import (
	"context"
	"math"
	"strconv"

	"github.com/goredisson/redisson/internal/core"
)

// Add adds v and reports whether any of its bits was unset: true means v
// was certainly not in the filter before.
func (b *BloomFilter[T]) Add(ctx context.Context, v T) (bool, error) {
	if b == nil {
		return false, core.NilHandle(kind, "add")
	}
	n, err := b.add(ctx, "add", []T{v})
	return n > 0, err
}

// AddAll adds every v in one script and returns how many of them had an
// unset bit (Redisson's add(Collection)). No element sends nothing.
func (b *BloomFilter[T]) AddAll(ctx context.Context, vs ...T) (int64, error) {
	if b == nil {
		return 0, core.NilHandle(kind, "add all")
	}
	return b.add(ctx, "add all", vs)
}

func (b *BloomFilter[T]) add(ctx context.Context, op string, vs []T) (int64, error) {
	if err := b.base.Check(ctx, op); err != nil {
		return 0, err
	}
	if len(vs) == 0 {
		return 0, nil
	}
	if err := b.noNil(op, vs); err != nil {
		return 0, err
	}
	size, hashes, err := b.learnt(ctx, op)
	if err != nil {
		return 0, err
	}
	args, err := b.indexArgs(op, []any{size, hashes, hashes}, vs, size, hashes)
	if err != nil {
		return 0, err
	}
	n, err := addScript.Run(ctx, b.base.Redis(), []string{b.config, b.base.Name()}, args...)
	if err != nil {
		return 0, b.fail(ctx, op, err)
	}
	c, _ := n.(int64)
	return c, nil
}

// Contains reports whether v may be in the filter: false is certain, true
// is wrong with the filter's false probability. A handle whose config is
// not the stored one answers false, as Redisson's does.
func (b *BloomFilter[T]) Contains(ctx context.Context, v T) (bool, error) {
	if b == nil {
		return false, core.NilHandle(kind, "contains")
	}
	n, err := b.contains(ctx, "contains", []T{v})
	return n > 0, err
}

// ContainsAll returns how many of vs may be in the filter, in one script
// (Redisson's contains(Collection)).
func (b *BloomFilter[T]) ContainsAll(ctx context.Context, vs ...T) (int64, error) {
	if b == nil {
		return 0, core.NilHandle(kind, "contains all")
	}
	return b.contains(ctx, "contains all", vs)
}

func (b *BloomFilter[T]) contains(ctx context.Context, op string, vs []T) (int64, error) {
	if err := b.base.Check(ctx, op); err != nil {
		return 0, err
	}
	if len(vs) == 0 {
		return 0, nil
	}
	if err := b.noNil(op, vs); err != nil {
		return 0, err
	}
	size, hashes, err := b.learnt(ctx, op)
	if err != nil {
		return 0, err
	}
	args, err := b.indexArgs(op, []any{size, hashes, len(vs)}, vs, size, hashes)
	if err != nil {
		return 0, err
	}
	n, err := containsScript.Run(ctx, b.base.Redis(), []string{b.config, b.base.Name()}, args...)
	if err != nil {
		return 0, b.fail(ctx, op, err)
	}
	c, _ := n.(int64)
	return c, nil
}

// Count estimates how many elements were added, from the number of set
// bits: round(−size/hashes · ln(1 − bits/size)). It reads {name}:config
// afresh (and this handle then uses it), then BITCOUNT.
func (b *BloomFilter[T]) Count(ctx context.Context) (int64, error) {
	if b == nil {
		return 0, core.NilHandle(kind, "count")
	}
	const op = "count"
	if err := b.base.Check(ctx, op); err != nil {
		return 0, err
	}
	size, hashes, err := b.readConfig(ctx, op)
	if err != nil {
		return 0, err
	}
	set, err := b.base.Redis().BitCount(ctx, b.base.Name(), nil).Result()
	if err != nil {
		return 0, b.fail(ctx, op, err)
	}
	return javaRound(-float64(size) / float64(hashes) * math.Log(1-float64(set)/float64(size))), nil
}

// setting reads one field of the stored config (Redisson's script, which
// fails when there is no config).
func (b *BloomFilter[T]) setting(ctx context.Context, op, field string) (string, error) {
	if err := b.base.Check(ctx, op); err != nil {
		return "", err
	}
	v, err := readSettingScript.Run(ctx, b.base.Redis(), []string{b.config}, field)
	if err != nil {
		return "", b.fail(ctx, op, err)
	}
	s, _ := v.(string)
	return s, nil
}

func (b *BloomFilter[T]) intSetting(ctx context.Context, op, field string) (int64, error) {
	s, err := b.setting(ctx, op, field)
	if err != nil {
		return 0, err
	}
	n, perr := strconv.ParseInt(s, 10, 64)
	if perr != nil {
		return 0, b.base.Named(op, core.Errorf(core.ErrWrongType, "%s field %s holds %q, not a number", b.config, field, s))
	}
	return n, nil
}

// Size returns the stored size in bits.
func (b *BloomFilter[T]) Size(ctx context.Context) (int64, error) {
	if b == nil {
		return 0, core.NilHandle(kind, "size")
	}
	return b.intSetting(ctx, "size", "size")
}

// HashIterations returns the stored number of hash functions.
func (b *BloomFilter[T]) HashIterations(ctx context.Context) (int, error) {
	if b == nil {
		return 0, core.NilHandle(kind, "hash iterations")
	}
	n, err := b.intSetting(ctx, "hash iterations", "hashIterations")
	return int(n), err
}

// ExpectedInsertions returns the stored expected number of elements.
func (b *BloomFilter[T]) ExpectedInsertions(ctx context.Context) (int64, error) {
	if b == nil {
		return 0, core.NilHandle(kind, "expected insertions")
	}
	return b.intSetting(ctx, "expected insertions", "expectedInsertions")
}

// FalseProbability returns the stored false-positive probability.
func (b *BloomFilter[T]) FalseProbability(ctx context.Context) (float64, error) {
	if b == nil {
		return 0, core.NilHandle(kind, "false probability")
	}
	const op = "false probability"
	s, err := b.setting(ctx, op, "falseProbability")
	if err != nil {
		return 0, err
	}
	p, perr := strconv.ParseFloat(s, 64)
	if perr != nil {
		return 0, b.base.Named(op, core.Errorf(core.ErrWrongType, "%s field falseProbability holds %q, not a number", b.config, s))
	}
	return p, nil
}

// Delete removes the bits and the config and reports whether either
// existed. This handle keeps its size and hash count: after another
// TryInit with other figures, make a new handle.
func (b *BloomFilter[T]) Delete(ctx context.Context) (bool, error) {
	if b == nil {
		return false, core.NilHandle(kind, "delete")
	}
	const op = "delete"
	if err := b.base.Check(ctx, op); err != nil {
		return false, err
	}
	n, err := b.base.Redis().Del(ctx, b.base.Name(), b.config).Result()
	if err != nil {
		return false, b.fail(ctx, op, err)
	}
	return n > 0, nil
}
