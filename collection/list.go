package collection

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"strings"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson/codec"
	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/internal/lua"
	"github.com/goredisson/redisson/source"
)

// Redisson's list scripts, as its BaseRedissonList sends them (the records'
// collections.list), and one of ours.
var (
	listInsertScript  = core.NewScript("list insert", lua.MustText(luaFiles, "lua/list_insert.lua"))
	listSetScript     = core.NewScript("list set", lua.MustText(luaFiles, "lua/list_set.lua"))
	listIndexOfScript = core.NewScript("list index of", lua.MustText(luaFiles, "lua/list_index_of.lua"))
	// Redisson's remove(index) overwrites the element with the text
	// DELETED_BY_REDISSON and removes the first element equal to it, which
	// removes a real element of that text further up the list instead
	// (possible with StringCodec or ByteArray). Ours picks a marker the
	// list does not hold; the effect on any other list is Redisson's.
	listRemoveAtScript = core.NewScript("list remove at", lua.MustText(luaFiles, "lua/list_remove_at.lua"))
)

// List is Redisson's RList<V>: a Redis list under the key name, each
// element encoded with the list's codec. Indexes count from 0 at the head;
// Get and Range take Redis' negative indexes too (-1 is the last element).
// Java's null is refused as an element.
type List[T any] struct {
	object
	codec codec.Codec
}

// NewList returns the list called name, its elements encoded with cd
// (Redisson's getList(name, codec)). An empty name, a nil source or a nil
// codec gives a handle whose every call fails.
func NewList[T any](src *source.Source, name string, cd codec.Codec) *List[T] {
	return &List[T]{object: newObject("list", "list", src, name, cd), codec: cd}
}

// Name returns the list's name, which is also its key.
func (l *List[T]) Name() string {
	if l == nil {
		return *new(string)
	}
	return l.base.Name()
}

func (l *List[T]) encodeAll(op string, vs []T) ([]any, error) {
	e := &encoder{o: &l.object, op: op, cd: l.codec}
	out := make([]any, 0, len(vs))
	for _, v := range vs {
		out = append(out, e.enc("element", v))
		if e.err != nil {
			return nil, e.err
		}
	}
	return out, nil
}

func (l *List[T]) element(ctx context.Context, op string, reply any) (T, bool, error) {
	var zero T
	data, ok := bulk(reply)
	if !ok {
		return zero, false, nil
	}
	v, err := decode[T](l.codec, data)
	if err != nil {
		return zero, false, l.base.Fail(ctx, op, err)
	}
	return v, true, nil
}

// Add appends v at the tail (RPUSH), as Redisson's add.
func (l *List[T]) Add(ctx context.Context, v T) error {
	if l == nil {
		return core.NilHandle("list", "add")
	}
	return l.AddAll(ctx, v)
}

// AddAll appends vs at the tail in one command (RPUSH), as Redisson's
// addAll; every element is encoded before anything is sent. None: nothing
// is sent.
func (l *List[T]) AddAll(ctx context.Context, vs ...T) error {
	if l == nil {
		return core.NilHandle("list", "add all")
	}
	const op = "add"
	if err := l.base.Check(ctx, op); err != nil {
		return err
	}
	if len(vs) == 0 {
		return nil
	}
	data, err := l.encodeAll(op, vs)
	if err != nil {
		return err
	}
	_, err = l.write(ctx, append([]any{"rpush", l.base.Name()}, data...)...)
	return l.base.Fail(ctx, op, err)
}

// Insert inserts vs before the element at index, so that the first of them
// gets that index (Redisson's add(index, v) and addAll(index, c)): LPUSH
// for index 0, else Redisson's script, which refuses an index beyond the
// size with ErrInvalidArgument and changes nothing. index must be 0 or more.
func (l *List[T]) Insert(ctx context.Context, index int64, vs ...T) error {
	if l == nil {
		return core.NilHandle("list", "insert")
	}
	const op = "insert"
	if err := l.base.Check(ctx, op); err != nil {
		return err
	}
	if index < 0 {
		return l.base.Invalid(op, "index %d is negative", index)
	}
	if len(vs) == 0 {
		return nil
	}
	data, err := l.encodeAll(op, vs)
	if err != nil {
		return err
	}
	if index == 0 {
		args := []any{"lpush", l.base.Name()}
		for i := len(data) - 1; i >= 0; i-- {
			args = append(args, data[i])
		}
		_, err = l.write(ctx, args...)
		return l.base.Fail(ctx, op, err)
	}
	_, err = l.eval(ctx, listInsertScript, true, append([]any{index}, data...)...)
	if err != nil && strings.Contains(err.Error(), "but current size") {
		err = fmt.Errorf("%w: index %d is beyond the end of the list (%v)", core.ErrInvalidArgument, index, err)
	}
	return l.base.Fail(ctx, op, err)
}

// Get returns the element at index, and false when there is none (LINDEX).
func (l *List[T]) Get(ctx context.Context, index int64) (T, bool, error) {
	if l == nil {
		return *new(T), false, core.NilHandle("list", "get")
	}
	const op = "get"
	var zero T
	if err := l.base.Check(ctx, op); err != nil {
		return zero, false, err
	}
	cmd, err := l.read(ctx, "lindex", l.base.Name(), index)
	if err != nil {
		return zero, false, l.base.Fail(ctx, op, err)
	}
	return l.element(ctx, op, cmd.Val())
}

// Set replaces the element at index with v and returns the element it
// replaced (Redisson's set: a script of LINDEX and LSET). An index with no
// element is ErrInvalidArgument (Java: IndexOutOfBoundsException), and
// nothing changes.
func (l *List[T]) Set(ctx context.Context, index int64, v T) (T, error) {
	if l == nil {
		return *new(T), core.NilHandle("list", "set")
	}
	const op = "set"
	var zero T
	if err := l.base.Check(ctx, op); err != nil {
		return zero, err
	}
	data, err := l.encodeAll(op, []T{v})
	if err != nil {
		return zero, err
	}
	reply, err := l.eval(ctx, listSetScript, true, index, data[0])
	if err != nil {
		var re redis.Error
		if errors.As(err, &re) && (strings.Contains(re.Error(), "index out of range") || strings.Contains(re.Error(), "no such key")) {
			err = fmt.Errorf("%w: no element at index %d", core.ErrInvalidArgument, index)
		}
		return zero, l.base.Fail(ctx, op, err)
	}
	old, _, err := l.element(ctx, op, reply)
	return old, err
}

// Remove removes the first element equal to v (the same bytes) and
// reports whether there was one (LREM key 1 v), as Redisson's remove(v).
func (l *List[T]) Remove(ctx context.Context, v T) (bool, error) {
	if l == nil {
		return false, core.NilHandle("list", "remove")
	}
	const op = "remove"
	if err := l.base.Check(ctx, op); err != nil {
		return false, err
	}
	data, err := l.encodeAll(op, []T{v})
	if err != nil {
		return false, err
	}
	cmd, err := l.write(ctx, "lrem", l.base.Name(), 1, data[0])
	if err != nil {
		return false, l.base.Fail(ctx, op, err)
	}
	n, err := cmd.Int64()
	if err != nil {
		return false, l.base.Fail(ctx, op, err)
	}
	return n > 0, nil
}

// RemoveAt removes the element at index and returns it, and false when
// there is none: LPOP for index 0, as Redisson's remove(0); else a script
// that overwrites the element with a marker and removes the marker, as
// Redisson's (see docs/collections.md for the marker).
func (l *List[T]) RemoveAt(ctx context.Context, index int64) (T, bool, error) {
	if l == nil {
		return *new(T), false, core.NilHandle("list", "remove at")
	}
	const op = "remove at"
	var zero T
	if err := l.base.Check(ctx, op); err != nil {
		return zero, false, err
	}
	var reply any
	if index == 0 {
		cmd, err := l.write(ctx, "lpop", l.base.Name())
		if err != nil {
			return zero, false, l.base.Fail(ctx, op, err)
		}
		reply = cmd.Val()
	} else {
		var err error
		if reply, err = l.eval(ctx, listRemoveAtScript, true, index); err != nil {
			return zero, false, l.base.Fail(ctx, op, err)
		}
	}
	return l.element(ctx, op, reply)
}

// IndexOf returns the index of the first element equal to v (the same
// bytes), or -1 (Redisson's indexOf script, which reads the whole list in
// Redis).
func (l *List[T]) IndexOf(ctx context.Context, v T) (int64, error) {
	if l == nil {
		return *new(int64), core.NilHandle("list", "index of")
	}
	const op = "index of"
	if err := l.base.Check(ctx, op); err != nil {
		return 0, err
	}
	data, err := l.encodeAll(op, []T{v})
	if err != nil {
		return 0, err
	}
	reply, err := l.eval(ctx, listIndexOfScript, false, data[0])
	if err != nil {
		return 0, l.base.Fail(ctx, op, err)
	}
	n, ok := reply.(int64)
	if !ok {
		return 0, l.base.Fail(ctx, op, fmt.Errorf("unexpected reply %v", reply))
	}
	return n, nil
}

// Size returns the number of elements (LLEN).
func (l *List[T]) Size(ctx context.Context) (int64, error) {
	if l == nil {
		return *new(int64), core.NilHandle("list", "size")
	}
	return l.size(ctx, "llen")
}

// Delete deletes the list and reports whether it existed (DEL).
func (l *List[T]) Delete(ctx context.Context) (bool, error) {
	if l == nil {
		return false, core.NilHandle("list", "delete")
	}
	return l.delete(ctx)
}

// Range returns the elements from index start to index stop, both included
// (LRANGE), as Redisson's range(from, to); negative indexes count from the
// tail.
func (l *List[T]) Range(ctx context.Context, start, stop int64) ([]T, error) {
	if l == nil {
		return *new([]T), core.NilHandle("list", "range")
	}
	return l.lrange(ctx, "range", start, stop)
}

// ReadAll returns every element in one command (LRANGE 0 -1), as
// Redisson's readAll. For a list that may be long, iterate with Values.
func (l *List[T]) ReadAll(ctx context.Context) ([]T, error) {
	if l == nil {
		return *new([]T), core.NilHandle("list", "read all")
	}
	return l.lrange(ctx, "read all", 0, -1)
}

func (l *List[T]) lrange(ctx context.Context, op string, start, stop int64) ([]T, error) {
	if err := l.base.Check(ctx, op); err != nil {
		return nil, err
	}
	return l.page(ctx, op, start, stop)
}

func (l *List[T]) page(ctx context.Context, op string, start, stop int64) ([]T, error) {
	cmd, err := l.read(ctx, "lrange", l.base.Name(), start, stop)
	if err != nil {
		return nil, l.base.Fail(ctx, op, err)
	}
	items, err := cmd.Slice()
	if err != nil {
		return nil, l.base.Fail(ctx, op, err)
	}
	out := make([]T, 0, len(items))
	for i, it := range items {
		data, _ := bulk(it)
		v, err := decode[T](l.codec, data)
		if err != nil {
			return nil, l.base.Fail(ctx, op, fmt.Errorf("element %d: %w", start+int64(i), err))
		}
		out = append(out, v)
	}
	return out, nil
}

// Values iterates over the list from head to tail in LRANGE pages of
// WithPageSize elements (see the package doc, Iteration). A page that
// fails to decode ends the iteration with its error.
func (l *List[T]) Values(ctx context.Context, opts ...ScanOption) iter.Seq2[T, error] {
	if l == nil {
		return core.NilSeq2[T]("list", "values")
	}
	return func(yield func(T, error) bool) {
		const op = "iterate"
		var zero T
		so, err := l.scanOptions(op, opts, true)
		if err != nil {
			yield(zero, err)
			return
		}
		for start := int64(0); ; start += int64(so.page) {
			if err := l.base.Check(ctx, op); err != nil {
				yield(zero, err)
				return
			}
			page, err := l.page(ctx, op, start, start+int64(so.page)-1)
			if err != nil {
				yield(zero, err)
				return
			}
			for _, v := range page {
				if err := l.base.Check(ctx, op); err != nil {
					yield(zero, err)
					return
				}
				if !yield(v, nil) {
					return
				}
			}
			if len(page) < so.page {
				return
			}
		}
	}
}
