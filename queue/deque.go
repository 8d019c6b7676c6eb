package queue

import (
	"context"

	"github.com/goredisson/redisson/codec"
	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/source"
)

// Deque is Redisson's RDeque<T>: a double-ended queue in the Redis list
// name. Besides the Queue methods (Offer appends, Poll takes the head) it
// adds and takes at both ends: AddFirst (LPUSH), AddLast (RPUSH), PeekFirst
// (LINDEX 0), PeekLast (LRANGE -1 -1), PollFirst (LPOP), PollLast (RPOP),
// as Java sends them.
type Deque[T any] struct {
	Queue[T]
}

// NewDeque returns the deque called name on src, encoded with cd
// (redisson.NewDeque). An empty name, a nil codec or a nil Source gives a
// handle whose every call fails (ErrInvalidName, ErrInvalidArgument).
func NewDeque[T any](src *source.Source, name string, cd codec.Codec) *Deque[T] {
	return &Deque[T]{Queue: Queue[T]{base: newBase[T]("deque", src, name, cd)}}
}

// AddFirst inserts v at the head (LPUSH), Java's addFirst, offerFirst and
// push.
func (d *Deque[T]) AddFirst(ctx context.Context, v T) error {
	if d == nil {
		return core.NilHandle("deque", "add first")
	}
	return d.push(ctx, "add first", "lpush", v)
}

// AddLast appends v to the tail (RPUSH), Java's addLast and offerLast.
func (d *Deque[T]) AddLast(ctx context.Context, v T) error {
	if d == nil {
		return core.NilHandle("deque", "add last")
	}
	return d.push(ctx, "add last", "rpush", v)
}

// PeekFirst returns the head without removing it, and false when the deque
// is empty (LINDEX 0).
func (d *Deque[T]) PeekFirst(ctx context.Context) (T, bool, error) {
	if d == nil {
		return *new(T), false, core.NilHandle("deque", "peek first")
	}
	v, ok, err := d.Peek(ctx)
	if err != nil {
		err = d.rename(err, "peek first")
	}
	return v, ok, err
}

// PeekLast returns the tail without removing it, and false when the deque
// is empty (LRANGE -1 -1, as Java reads it).
func (d *Deque[T]) PeekLast(ctx context.Context) (T, bool, error) {
	if d == nil {
		return *new(T), false, core.NilHandle("deque", "peek last")
	}
	const op = "peek last"
	var zero T
	if err := d.check(ctx, op); err != nil {
		return zero, false, err
	}
	items, err := d.rdb().LRange(ctx, d.name, -1, -1).Result()
	if err != nil {
		return zero, false, d.failRedis(ctx, op, err)
	}
	if len(items) == 0 {
		return zero, false, nil
	}
	v, err := d.decode(op, items[0])
	return v, err == nil, err
}

// PollFirst removes and returns the head, and false when the deque is empty
// (LPOP). It does not wait; see BlockingDeque for that.
func (d *Deque[T]) PollFirst(ctx context.Context) (T, bool, error) {
	if d == nil {
		return *new(T), false, core.NilHandle("deque", "poll first")
	}
	return d.pop(ctx, "poll first", "lpush", "lpop", d.name)
}

// PollLast removes and returns the tail, and false when the deque is empty
// (RPOP). It does not wait; see BlockingDeque for that.
func (d *Deque[T]) PollLast(ctx context.Context) (T, bool, error) {
	if d == nil {
		return *new(T), false, core.NilHandle("deque", "poll last")
	}
	return d.pop(ctx, "poll last", "rpush", "rpop", d.name)
}

// RemoveLastOccurrence removes the last element that encodes to the same
// bytes as v and reports whether there was one (LREM name -1 v).
func (d *Deque[T]) RemoveLastOccurrence(ctx context.Context, v T) (bool, error) {
	if d == nil {
		return false, core.NilHandle("deque", "remove last occurrence")
	}
	return d.remove(ctx, "remove last occurrence", -1, v)
}

// rename gives an error of a shared method the operation the caller called.
func (b *base[T]) rename(err error, op string) error {
	if oe, ok := err.(interface{ Unwrap() error }); ok {
		return b.fail(op, oe.Unwrap())
	}
	return err
}
