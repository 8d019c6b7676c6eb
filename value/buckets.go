package value

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf16"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson/codec"
	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/internal/handle"
	"github.com/goredisson/redisson/internal/slot"
	"github.com/goredisson/redisson/source"
)

// Buckets is Redisson's RBuckets: many buckets (plain keys, each holding one
// encoded value) read and written in one command, with one codec. Get is
// MGET, Set is MSET and TrySet is MSETNX (all or none), as Java sends them;
// each key is the same key a Bucket of that name uses.
//
// On a cluster the keys are grouped by hash slot, one command per slot, as
// Redisson does: TrySet is then all-or-none within each slot only (give
// the names one hash tag, "{order:7}:a", to keep them together).
type Buckets[T any] struct {
	rdb   redis.UniversalClient
	life  context.Context
	codec codec.Codec
	err   error
}

// NewBuckets returns the buckets of src's client encoded with c
// (redisson.NewBuckets; Java: getBuckets(codec)). A nil or zero src or a
// nil codec gives a handle whose every call fails (ErrInvalidArgument).
func NewBuckets[T any](src *source.Source, c codec.Codec) *Buckets[T] {
	b := &Buckets[T]{codec: c}
	if rt := (*handle.Source)(src).Runtime(); rt != nil {
		b.rdb, b.life = rt.Redis(), rt.Lifetime()
	}
	switch {
	case b.rdb == nil:
		b.err = fmt.Errorf("%w: nil Redis client", core.ErrInvalidArgument)
	case c == nil:
		b.err = fmt.Errorf("%w: nil codec", core.ErrInvalidArgument)
	}
	return b
}

// named names the keys of a call in err: `buckets "[a,b]": op: cause`.
func (b *Buckets[T]) named(keys []string, op string, err error) error {
	if err == nil {
		return nil
	}
	return &core.ObjectError{Kind: "buckets", Name: "[" + strings.Join(keys, ",") + "]", Op: op, Err: err}
}

func (b *Buckets[T]) check(ctx context.Context, keys []string, op string) error {
	switch {
	case b.err != nil:
		return b.named(keys, op, b.err)
	case ctx == nil:
		return b.named(keys, op, core.ErrNilContext)
	case b.life.Err() != nil:
		return b.named(keys, op, context.Cause(b.life))
	}
	for _, k := range keys {
		if k == "" {
			return b.named(keys, op, fmt.Errorf("%w: a bucket name must not be empty", core.ErrInvalidName))
		}
	}
	return nil
}

// groups splits keys by hash slot on a cluster, keeping their order; one
// group elsewhere.
func (b *Buckets[T]) groups(keys []string) [][]string {
	if _, ok := b.rdb.(*redis.ClusterClient); !ok {
		return [][]string{keys}
	}
	var order []int
	by := map[int][]string{}
	for _, k := range keys {
		s := slot.Of(k)
		if _, seen := by[s]; !seen {
			order = append(order, s)
		}
		by[s] = append(by[s], k)
	}
	out := make([][]string, 0, len(order))
	for _, s := range order {
		out = append(out, by[s])
	}
	return out
}

// Get returns the values of the named buckets that exist, by name (MGET);
// no name gives an empty map without a command.
func (b *Buckets[T]) Get(ctx context.Context, names ...string) (map[string]T, error) {
	if b == nil {
		return nil, core.NilHandle("buckets", "get")
	}
	const op = "get"
	if err := b.check(ctx, names, op); err != nil {
		return nil, err
	}
	out := make(map[string]T, len(names))
	for _, keys := range b.groups(names) {
		vals, err := b.rdb.MGet(ctx, keys...).Result()
		if err != nil {
			return nil, b.named(keys, op, err)
		}
		for i, v := range vals {
			s, ok := v.(string)
			if !ok {
				continue // nil: no such key, or not a string
			}
			var t T
			if err := b.codec.Decode([]byte(s), &t); err != nil {
				return nil, b.named([]string{keys[i]}, op, err)
			}
			out[keys[i]] = t
		}
	}
	return out, nil
}

// Set stores every entry, removing the TTLs of the keys it replaces
// (MSET). A nil value is refused (ErrInvalidArgument), as Java's codecs
// refuse null.
func (b *Buckets[T]) Set(ctx context.Context, entries map[string]T) error {
	if b == nil {
		return core.NilHandle("buckets", "set")
	}
	_, err := b.write(ctx, "set", "mset", entries)
	return err
}

// TrySet stores every entry only when none of the keys exists, and reports
// whether it did (MSETNX): all or none. An empty map stores nothing and
// reports false, as Java.
func (b *Buckets[T]) TrySet(ctx context.Context, entries map[string]T) (bool, error) {
	if b == nil {
		return false, core.NilHandle("buckets", "try set")
	}
	return b.write(ctx, "try set", "msetnx", entries)
}

// write sends MSET or MSETNX with the entries in the order of Java's
// HashMap (so that the command is the one Redisson sends), per slot group;
// MSETNX succeeds when every group's did.
func (b *Buckets[T]) write(ctx context.Context, op, cmd string, entries map[string]T) (bool, error) {
	keys := javaHashOrder(entries)
	if err := b.check(ctx, keys, op); err != nil {
		return false, err
	}
	if len(entries) == 0 {
		return false, nil
	}
	enc := make(map[string][]byte, len(entries))
	for _, k := range keys {
		if isNull(entries[k]) {
			return false, b.named([]string{k}, op, fmt.Errorf("%w: the value must not be nil", core.ErrInvalidArgument))
		}
		data, err := b.codec.Encode(entries[k])
		if err != nil {
			return false, b.named([]string{k}, op, err)
		}
		enc[k] = data
	}
	all := true
	for _, group := range b.groups(keys) {
		args := []any{cmd}
		for _, k := range group {
			args = append(args, k, enc[k])
		}
		res, err := b.rdb.Do(ctx, args...).Result()
		if err != nil && !errors.Is(err, redis.Nil) {
			return false, b.named(group, op, err)
		}
		if n, ok := res.(int64); ok && n != 1 {
			all = false
		}
	}
	return all, nil
}

// javaHashOrder returns the keys of m in the order a java.util.HashMap
// holding them iterates: by bucket of the spread String.hashCode in a
// table sized for them, ties (one bucket) by name.
func javaHashOrder[T any](m map[string]T) []string {
	size := 16
	for len(m) > size*3/4 {
		size *= 2
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	bucket := func(k string) int {
		var h int32
		for _, c := range utf16.Encode([]rune(k)) {
			h = 31*h + int32(c)
		}
		u := uint32(h)
		return int((u ^ u>>16) & uint32(size-1))
	}
	slices.SortFunc(keys, func(a, b string) int {
		if d := bucket(a) - bucket(b); d != 0 {
			return d
		}
		return strings.Compare(a, b)
	})
	return keys
}
