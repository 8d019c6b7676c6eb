package collection

import (
	"context"
	"fmt"
	"iter"

	"github.com/goredisson/redisson/codec"
	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/source"
)

// Set is Redisson's RSet<V>: a Redis set under the key name, each member
// encoded with the set's codec. Members are equal when their bytes are:
// with JsonJackson, int32(1), int64(1) (a Java Long) and "1" are three
// members, as in Java. Java's null is refused as a member.
type Set[T any] struct {
	object
	codec codec.Codec
}

// NewSet returns the set called name, its members encoded with cd
// (Redisson's getSet(name, codec)). An empty name, a nil source or a nil
// codec gives a handle whose every call fails.
func NewSet[T any](src *source.Source, name string, cd codec.Codec) *Set[T] {
	return &Set[T]{object: newObject("set", "set", src, name, cd), codec: cd}
}

// Name returns the set's name, which is also its key.
func (s *Set[T]) Name() string {
	if s == nil {
		return *new(string)
	}
	return s.base.Name()
}

func (s *Set[T]) encodeAll(op string, vs []T) ([]any, error) {
	e := &encoder{o: &s.object, op: op, cd: s.codec}
	out := make([]any, 0, len(vs))
	for _, v := range vs {
		out = append(out, e.enc("member", v))
		if e.err != nil {
			return nil, e.err
		}
	}
	return out, nil
}

// count sends command with the members vs and returns its integer reply.
func (s *Set[T]) count(ctx context.Context, op, command string, write bool, vs []T) (int64, error) {
	if err := s.base.Check(ctx, op); err != nil {
		return 0, err
	}
	if len(vs) == 0 {
		return 0, nil
	}
	data, err := s.encodeAll(op, vs)
	if err != nil {
		return 0, err
	}
	send := s.read
	if write {
		send = s.write
	}
	cmd, err := send(ctx, append([]any{command, s.base.Name()}, data...)...)
	if err != nil {
		return 0, s.base.Fail(ctx, op, err)
	}
	n, err := cmd.Int64()
	if err != nil {
		return 0, s.base.Fail(ctx, op, err)
	}
	return n, nil
}

// Add adds v and reports whether it was new (SADD), as Redisson's add.
func (s *Set[T]) Add(ctx context.Context, v T) (bool, error) {
	if s == nil {
		return false, core.NilHandle("set", "add")
	}
	n, err := s.count(ctx, "add", "sadd", true, []T{v})
	return n == 1, err
}

// AddAll adds vs in one command and returns how many were new (SADD);
// every member is encoded before anything is sent. None: nothing is sent.
func (s *Set[T]) AddAll(ctx context.Context, vs ...T) (int64, error) {
	if s == nil {
		return *new(int64), core.NilHandle("set", "add all")
	}
	return s.count(ctx, "add all", "sadd", true, vs)
}

// Remove removes v and reports whether it was there (SREM).
func (s *Set[T]) Remove(ctx context.Context, v T) (bool, error) {
	if s == nil {
		return false, core.NilHandle("set", "remove")
	}
	n, err := s.count(ctx, "remove", "srem", true, []T{v})
	return n == 1, err
}

// Contains reports whether v is a member (SISMEMBER).
func (s *Set[T]) Contains(ctx context.Context, v T) (bool, error) {
	if s == nil {
		return false, core.NilHandle("set", "contains")
	}
	n, err := s.count(ctx, "contains", "sismember", false, []T{v})
	return n == 1, err
}

// Size returns the number of members (SCARD).
func (s *Set[T]) Size(ctx context.Context) (int64, error) {
	if s == nil {
		return *new(int64), core.NilHandle("set", "size")
	}
	return s.size(ctx, "scard")
}

// Delete deletes the set and reports whether it existed (DEL).
func (s *Set[T]) Delete(ctx context.Context) (bool, error) {
	if s == nil {
		return false, core.NilHandle("set", "delete")
	}
	return s.delete(ctx)
}

// ReadAll returns every member in one command (SMEMBERS), as Redisson's
// readAll, in Redis' order. For a set that may be large, iterate with
// Values.
func (s *Set[T]) ReadAll(ctx context.Context) ([]T, error) {
	if s == nil {
		return *new([]T), core.NilHandle("set", "read all")
	}
	const op = "read all"
	if err := s.base.Check(ctx, op); err != nil {
		return nil, err
	}
	cmd, err := s.read(ctx, "smembers", s.base.Name())
	if err != nil {
		return nil, s.base.Fail(ctx, op, err)
	}
	items, err := cmd.Slice()
	if err != nil {
		return nil, s.base.Fail(ctx, op, err)
	}
	out := make([]T, 0, len(items))
	for _, it := range items {
		v, err := s.member(it)
		if err != nil {
			return nil, s.base.Fail(ctx, op, err)
		}
		out = append(out, v)
	}
	return out, nil
}

func (s *Set[T]) member(it any) (T, error) {
	data, _ := bulk(it)
	v, err := decode[T](s.codec, data)
	if err != nil {
		return v, fmt.Errorf("member %.40q: %w", data, err)
	}
	return v, nil
}

// Values iterates over the members with SSCAN (see the package doc,
// Iteration). Options: WithPageSize, WithMatch.
func (s *Set[T]) Values(ctx context.Context, opts ...ScanOption) iter.Seq2[T, error] {
	if s == nil {
		return core.NilSeq2[T]("set", "values")
	}
	return func(yield func(T, error) bool) {
		const op = "iterate"
		var zero T
		so, err := s.scanOptions(op, opts, false)
		if err != nil {
			yield(zero, err)
			return
		}
		s.scan(ctx, op, "sscan", so, func(items []any) bool {
			for _, it := range items {
				if err := s.base.Check(ctx, op); err != nil {
					yield(zero, err)
					return false
				}
				v, err := s.member(it)
				if err != nil {
					yield(zero, s.base.Fail(ctx, op, err))
					return false
				}
				if !yield(v, nil) {
					return false
				}
			}
			return true
		}, func(err error) { yield(zero, err) })
	}
}
