package queue

// A method a handle gets from the type it embeds would panic on a nil
// handle (Go's wrapper dereferences the nil pointer to reach the embedded
// value before the method runs): each handle declares them itself, so
// that a nil handle of every queue type fails with core.ErrNilHandle, as
// the other objects' handles do.

import (
	"context"
	"iter"

	"github.com/goredisson/redisson/codec"
	"github.com/goredisson/redisson/internal/core"
)

// Name is [Queue.Name].
func (d *Deque[T]) Name() string {
	if d == nil {
		return ""
	}
	return d.Queue.Name()
}

// Codec is [Queue.Codec].
func (d *Deque[T]) Codec() codec.Codec {
	if d == nil {
		return nil
	}
	return d.Queue.Codec()
}

// Offer is [Queue.Offer].
func (d *Deque[T]) Offer(ctx context.Context, v T) error {
	if d == nil {
		return core.NilHandle("deque", "offer")
	}
	return d.Queue.Offer(ctx, v)
}

// Add is [Queue.Add].
func (d *Deque[T]) Add(ctx context.Context, vs ...T) error {
	if d == nil {
		return core.NilHandle("deque", "add")
	}
	return d.Queue.Add(ctx, vs...)
}

// Poll is [Queue.Poll].
func (d *Deque[T]) Poll(ctx context.Context) (T, bool, error) {
	if d == nil {
		return *new(T), false, core.NilHandle("deque", "poll")
	}
	return d.Queue.Poll(ctx)
}

// Peek is [Queue.Peek].
func (d *Deque[T]) Peek(ctx context.Context) (T, bool, error) {
	if d == nil {
		return *new(T), false, core.NilHandle("deque", "peek")
	}
	return d.Queue.Peek(ctx)
}

// Size is [Queue.Size].
func (d *Deque[T]) Size(ctx context.Context) (int64, error) {
	if d == nil {
		return 0, core.NilHandle("deque", "size")
	}
	return d.Queue.Size(ctx)
}

// Contains is [Queue.Contains].
func (d *Deque[T]) Contains(ctx context.Context, v T) (bool, error) {
	if d == nil {
		return false, core.NilHandle("deque", "contains")
	}
	return d.Queue.Contains(ctx, v)
}

// Remove is [Queue.Remove].
func (d *Deque[T]) Remove(ctx context.Context, v T) (bool, error) {
	if d == nil {
		return false, core.NilHandle("deque", "remove")
	}
	return d.Queue.Remove(ctx, v)
}

// ReadAll is [Queue.ReadAll].
func (d *Deque[T]) ReadAll(ctx context.Context) ([]T, error) {
	if d == nil {
		return nil, core.NilHandle("deque", "read all")
	}
	return d.Queue.ReadAll(ctx)
}

// All is [Queue.All].
func (d *Deque[T]) All(ctx context.Context) iter.Seq2[T, error] {
	if d == nil {
		return core.NilSeq2[T]("deque", "all")
	}
	return d.Queue.All(ctx)
}

// Delete is [Queue.Delete].
func (d *Deque[T]) Delete(ctx context.Context) (bool, error) {
	if d == nil {
		return false, core.NilHandle("deque", "delete")
	}
	return d.Queue.Delete(ctx)
}

// PollLastAndOfferFirstTo is [Queue.PollLastAndOfferFirstTo].
func (d *Deque[T]) PollLastAndOfferFirstTo(ctx context.Context, dest string) (T, bool, error) {
	if d == nil {
		return *new(T), false, core.NilHandle("deque", "poll last and offer first to")
	}
	return d.Queue.PollLastAndOfferFirstTo(ctx, dest)
}

// Name is [Queue.Name].
func (q *BlockingQueue[T]) Name() string {
	if q == nil {
		return ""
	}
	return q.Queue.Name()
}

// Codec is [Queue.Codec].
func (q *BlockingQueue[T]) Codec() codec.Codec {
	if q == nil {
		return nil
	}
	return q.Queue.Codec()
}

// Offer is [Queue.Offer].
func (q *BlockingQueue[T]) Offer(ctx context.Context, v T) error {
	if q == nil {
		return core.NilHandle("blocking queue", "offer")
	}
	return q.Queue.Offer(ctx, v)
}

// Add is [Queue.Add].
func (q *BlockingQueue[T]) Add(ctx context.Context, vs ...T) error {
	if q == nil {
		return core.NilHandle("blocking queue", "add")
	}
	return q.Queue.Add(ctx, vs...)
}

// Peek is [Queue.Peek].
func (q *BlockingQueue[T]) Peek(ctx context.Context) (T, bool, error) {
	if q == nil {
		return *new(T), false, core.NilHandle("blocking queue", "peek")
	}
	return q.Queue.Peek(ctx)
}

// Size is [Queue.Size].
func (q *BlockingQueue[T]) Size(ctx context.Context) (int64, error) {
	if q == nil {
		return 0, core.NilHandle("blocking queue", "size")
	}
	return q.Queue.Size(ctx)
}

// Contains is [Queue.Contains].
func (q *BlockingQueue[T]) Contains(ctx context.Context, v T) (bool, error) {
	if q == nil {
		return false, core.NilHandle("blocking queue", "contains")
	}
	return q.Queue.Contains(ctx, v)
}

// Remove is [Queue.Remove].
func (q *BlockingQueue[T]) Remove(ctx context.Context, v T) (bool, error) {
	if q == nil {
		return false, core.NilHandle("blocking queue", "remove")
	}
	return q.Queue.Remove(ctx, v)
}

// ReadAll is [Queue.ReadAll].
func (q *BlockingQueue[T]) ReadAll(ctx context.Context) ([]T, error) {
	if q == nil {
		return nil, core.NilHandle("blocking queue", "read all")
	}
	return q.Queue.ReadAll(ctx)
}

// All is [Queue.All].
func (q *BlockingQueue[T]) All(ctx context.Context) iter.Seq2[T, error] {
	if q == nil {
		return core.NilSeq2[T]("blocking queue", "all")
	}
	return q.Queue.All(ctx)
}

// Delete is [Queue.Delete].
func (q *BlockingQueue[T]) Delete(ctx context.Context) (bool, error) {
	if q == nil {
		return false, core.NilHandle("blocking queue", "delete")
	}
	return q.Queue.Delete(ctx)
}

// PollLastAndOfferFirstTo is [Queue.PollLastAndOfferFirstTo].
func (q *BlockingQueue[T]) PollLastAndOfferFirstTo(ctx context.Context, dest string) (T, bool, error) {
	if q == nil {
		return *new(T), false, core.NilHandle("blocking queue", "poll last and offer first to")
	}
	return q.Queue.PollLastAndOfferFirstTo(ctx, dest)
}

// Name is [Deque.Name].
func (d *BlockingDeque[T]) Name() string {
	if d == nil {
		return ""
	}
	return d.Deque.Name()
}

// Codec is [Deque.Codec].
func (d *BlockingDeque[T]) Codec() codec.Codec {
	if d == nil {
		return nil
	}
	return d.Deque.Codec()
}

// Offer is [Deque.Offer].
func (d *BlockingDeque[T]) Offer(ctx context.Context, v T) error {
	if d == nil {
		return core.NilHandle("blocking deque", "offer")
	}
	return d.Deque.Offer(ctx, v)
}

// Add is [Deque.Add].
func (d *BlockingDeque[T]) Add(ctx context.Context, vs ...T) error {
	if d == nil {
		return core.NilHandle("blocking deque", "add")
	}
	return d.Deque.Add(ctx, vs...)
}

// Peek is [Deque.Peek].
func (d *BlockingDeque[T]) Peek(ctx context.Context) (T, bool, error) {
	if d == nil {
		return *new(T), false, core.NilHandle("blocking deque", "peek")
	}
	return d.Deque.Peek(ctx)
}

// Size is [Deque.Size].
func (d *BlockingDeque[T]) Size(ctx context.Context) (int64, error) {
	if d == nil {
		return 0, core.NilHandle("blocking deque", "size")
	}
	return d.Deque.Size(ctx)
}

// Contains is [Deque.Contains].
func (d *BlockingDeque[T]) Contains(ctx context.Context, v T) (bool, error) {
	if d == nil {
		return false, core.NilHandle("blocking deque", "contains")
	}
	return d.Deque.Contains(ctx, v)
}

// Remove is [Deque.Remove].
func (d *BlockingDeque[T]) Remove(ctx context.Context, v T) (bool, error) {
	if d == nil {
		return false, core.NilHandle("blocking deque", "remove")
	}
	return d.Deque.Remove(ctx, v)
}

// ReadAll is [Deque.ReadAll].
func (d *BlockingDeque[T]) ReadAll(ctx context.Context) ([]T, error) {
	if d == nil {
		return nil, core.NilHandle("blocking deque", "read all")
	}
	return d.Deque.ReadAll(ctx)
}

// All is [Deque.All].
func (d *BlockingDeque[T]) All(ctx context.Context) iter.Seq2[T, error] {
	if d == nil {
		return core.NilSeq2[T]("blocking deque", "all")
	}
	return d.Deque.All(ctx)
}

// Delete is [Deque.Delete].
func (d *BlockingDeque[T]) Delete(ctx context.Context) (bool, error) {
	if d == nil {
		return false, core.NilHandle("blocking deque", "delete")
	}
	return d.Deque.Delete(ctx)
}

// PollLastAndOfferFirstTo is [Deque.PollLastAndOfferFirstTo].
func (d *BlockingDeque[T]) PollLastAndOfferFirstTo(ctx context.Context, dest string) (T, bool, error) {
	if d == nil {
		return *new(T), false, core.NilHandle("blocking deque", "poll last and offer first to")
	}
	return d.Deque.PollLastAndOfferFirstTo(ctx, dest)
}

// AddFirst is [Deque.AddFirst].
func (d *BlockingDeque[T]) AddFirst(ctx context.Context, v T) error {
	if d == nil {
		return core.NilHandle("blocking deque", "add first")
	}
	return d.Deque.AddFirst(ctx, v)
}

// AddLast is [Deque.AddLast].
func (d *BlockingDeque[T]) AddLast(ctx context.Context, v T) error {
	if d == nil {
		return core.NilHandle("blocking deque", "add last")
	}
	return d.Deque.AddLast(ctx, v)
}

// PeekFirst is [Deque.PeekFirst].
func (d *BlockingDeque[T]) PeekFirst(ctx context.Context) (T, bool, error) {
	if d == nil {
		return *new(T), false, core.NilHandle("blocking deque", "peek first")
	}
	return d.Deque.PeekFirst(ctx)
}

// PeekLast is [Deque.PeekLast].
func (d *BlockingDeque[T]) PeekLast(ctx context.Context) (T, bool, error) {
	if d == nil {
		return *new(T), false, core.NilHandle("blocking deque", "peek last")
	}
	return d.Deque.PeekLast(ctx)
}

// RemoveLastOccurrence is [Deque.RemoveLastOccurrence].
func (d *BlockingDeque[T]) RemoveLastOccurrence(ctx context.Context, v T) (bool, error) {
	if d == nil {
		return false, core.NilHandle("blocking deque", "remove last occurrence")
	}
	return d.Deque.RemoveLastOccurrence(ctx, v)
}
