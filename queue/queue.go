// Package queue holds Redisson's queues, wire-identical with Java: Queue
// (RQueue), Deque (RDeque), BlockingQueue (RBlockingQueue), BlockingDeque
// (RBlockingDeque) and DelayedQueue (RDelayedQueue). A Java service calling
// redisson.getBlockingQueue(name, codec) and a Go service using the same
// name and an equivalent codec (see package codec) push and pop the same
// elements of the same Redis list with the same commands; a delayed queue's
// producer and transfer task write and move the same packed entries as
// Redisson's, so an element offered on either side reaches a consumer on
// the other on time.
//
// Make queues from a client's Source: NewQueue[T](client.Source(), name,
// codec) and its kin, or redisson.NewQueue[T](client, name, codec), the
// same constructor spelled shorter. Handles are cheap and safe for concurrent use, except
// that a DelayedQueue runs a transfer task until Destroy (see DelayedQueue).
//
// Blocking calls (Take, Poll with a timeout, TakeFirst, TakeLast, ...) never
// block a connection of the go-redis pool: each waits on a connection of its
// own, kept by the handle between calls. They end when their context is
// done, and with ErrClosed when the Client closes; an element Redis handed to
// a call whose caller had left by then is put back where it came from, never
// lost (see docs/queues.md, "the cancelled take"). They ride out a failover
// or a restart with the Client's retry policy (Options.Retry), like lock
// waits.
//
// Every call takes a context first and returns the errors of package
// redisson: ErrInvalidName for an empty name, ErrInvalidArgument for a nil
// codec, a nil element (Java's queues hold no null) or a negative duration,
// ErrWrongType naming the key that holds another type, ErrClosed after the
// Client's Close; codec errors wrap codec.ErrEncode (nothing is written) or
// codec.ErrDecode (the element is put back where it was). Errors read
// `<kind> "<name>": <operation>: <cause>`.
//
// Redisson 3.52 and 4.7 lay out and send every object of this package the
// same way (same keys, commands, scripts and entry packing), so there is no
// option naming the peer's version.
package queue

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"reflect"
	"strings"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson/codec"
	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/internal/handle"
	"github.com/goredisson/redisson/source"
)

// pageSize is how many elements one LRANGE of an iteration reads.
const pageSize = 100

// base is what every queue handle has: its key, its codec, its client and
// how its errors name it.
type base[T any] struct {
	kind  string // "queue", "blocking deque", ...
	name  string
	codec codec.Codec
	rt    *core.Runtime // the client's: go-redis client, hub, retry policy, lifetime
	err   error         // the constructor's: an empty name, a nil codec or source
}

func newBase[T any](kind string, src *source.Source, name string, cd codec.Codec) base[T] {
	b := base[T]{kind: kind, name: name, codec: cd, rt: (*handle.Source)(src).Runtime()}
	switch {
	case name == "":
		b.err = fmt.Errorf("%w: the name must not be empty", core.ErrInvalidName)
	case cd == nil:
		b.err = fmt.Errorf("%w: nil codec", core.ErrInvalidArgument)
	case b.rt == nil || b.rt.Redis() == nil:
		b.err = fmt.Errorf("%w: nil Source (get queues from a redisson.Client)", core.ErrInvalidArgument)
	}
	return b
}

func (b *base[T]) rdb() redis.UniversalClient { return b.rt.Redis() }

func (b *base[T]) fail(op string, err error) error {
	if err == nil {
		return nil
	}
	return &core.ObjectError{Kind: b.kind, Name: b.name, Op: op, Err: err}
}

// check returns why a call cannot be made: an invalid handle, a closed
// client, a done context.
func (b *base[T]) check(ctx context.Context, op string) error {
	if b.err != nil {
		return b.fail(op, b.err)
	}
	if err := b.rt.Check(ctx); err != nil {
		return b.fail(op, err)
	}
	return nil
}

// failRedis names the object in a Redis failure; a WRONGTYPE reply says
// what the key holds instead of a list (one TYPE, on this path only).
func (b *base[T]) failRedis(ctx context.Context, op string, err error) error {
	if err == nil {
		return nil
	}
	if isWrongType(err) {
		err = core.WrongTypeError(ctx, b.rdb(), b.name, "list")
	} else if b.rt.Lifetime().Err() != nil && core.Transport(err) {
		err = core.ErrClosed
	}
	return b.fail(op, err)
}

func isWrongType(err error) bool {
	var re redis.Error
	return errors.Is(err, core.ErrWrongType) || errors.As(err, &re) && strings.HasPrefix(re.Error(), "WRONGTYPE")
}

// isNull reports whether v is Java's null: a nil pointer, interface, map,
// slice, channel or function, or the empty codec.Decimal. Redisson's queues
// refuse null elements.
func isNull(v any) bool {
	if v == nil {
		return true
	}
	if d, ok := v.(codec.Decimal); ok {
		return d == ""
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Pointer, reflect.Interface, reflect.Map, reflect.Slice, reflect.Chan, reflect.Func:
		return rv.IsNil()
	}
	return false
}

// encode encodes an element, refusing null, before anything is sent.
func (b *base[T]) encode(op string, v T) ([]byte, error) {
	if isNull(v) {
		return nil, b.fail(op, fmt.Errorf("%w: the element must not be nil (Java's queues hold no null)", core.ErrInvalidArgument))
	}
	data, err := b.codec.Encode(v)
	if err != nil {
		return nil, b.fail(op, err)
	}
	return data, nil
}

func (b *base[T]) encodeAll(op string, vs []T) ([]any, error) {
	out := make([]any, len(vs))
	for i, v := range vs {
		data, err := b.encode(op, v)
		if err != nil {
			return nil, err
		}
		out[i] = data
	}
	return out, nil
}

func (b *base[T]) decode(op string, data string) (T, error) {
	var v T
	if err := b.codec.Decode([]byte(data), &v); err != nil {
		return v, b.fail(op, err)
	}
	return v, nil
}

// noRetry marks a command go-redis must not send a second time: a pop
// whose reply was lost must not pop a second element.
type noRetry struct{ *redis.Cmd }

func (noRetry) NoRetry() bool { return true }

// pop sends a command that removes and returns one element (LPOP, RPOP,
// RPOPLPUSH) once at most. The reply is waited for even when ctx ends
// meanwhile (ctx was checked before sending): an element Redis removed must
// reach the caller, or go back.
//
// back is how to put an element back that the codec cannot decode ("lpush"
// for the head, "rpush" for the tail, "" when the command moved it to
// another list, where it stays).
func (b *base[T]) pop(ctx context.Context, op, back string, args ...any) (T, bool, error) {
	var zero T
	if err := b.check(ctx, op); err != nil {
		return zero, false, err
	}
	cmd := redis.NewCmd(ctx, args...)
	err := b.rdb().Process(context.WithoutCancel(ctx), noRetry{cmd})
	if errors.Is(err, redis.Nil) {
		return zero, false, nil
	}
	if err != nil {
		return zero, false, b.failRedis(ctx, op, err)
	}
	data, err := cmd.Text()
	if err != nil {
		return zero, false, b.fail(op, err)
	}
	v, err := b.decode(op, data)
	if err != nil {
		// Put back where it came from: the element is never lost to a
		// codec that cannot read it (a Java consumer, or a Go one with the
		// right type, can take it).
		if back != "" {
			b.putBackOn(ctx, b.rdb(), back, data)
		}
		return zero, false, err
	}
	return v, true, nil
}

// peek reads one element without removing it.
func (b *base[T]) peekAt(ctx context.Context, op string, cmd *redis.StringCmd) (T, bool, error) {
	var zero T
	data, err := cmd.Result()
	if errors.Is(err, redis.Nil) {
		return zero, false, nil
	}
	if err != nil {
		return zero, false, b.failRedis(ctx, op, err)
	}
	v, err := b.decode(op, data)
	return v, err == nil, err
}

// Queue is Redisson's RQueue<T>: a FIFO of elements in the Redis list name
// (the name as it is), each encoded with the codec. Offer appends (RPUSH),
// Poll takes the head (LPOP), Peek reads it (LINDEX 0), as Java does.
type Queue[T any] struct {
	base[T]
}

// NewQueue returns the queue called name on src, encoded with cd
// (redisson.NewQueue). An empty name, a nil codec or a nil Source gives a
// handle whose every call fails (ErrInvalidName, ErrInvalidArgument).
func NewQueue[T any](src *source.Source, name string, cd codec.Codec) *Queue[T] {
	return &Queue[T]{base: newBase[T]("queue", src, name, cd)}
}

// Name returns the queue's name, which is also its key.
func (q *Queue[T]) Name() string {
	if q == nil {
		return *new(string)
	}
	return q.name
}

// Codec returns the codec the queue's elements are encoded with.
func (q *Queue[T]) Codec() codec.Codec {
	if q == nil {
		return *new(codec.Codec)
	}
	return q.codec
}

// Offer appends v to the tail (RPUSH), Java's offer and add.
func (q *Queue[T]) Offer(ctx context.Context, v T) error {
	if q == nil {
		return core.NilHandle("queue", "offer")
	}
	return q.push(ctx, "offer", "rpush", v)
}

// Add appends every element of vs to the tail in one RPUSH, in order
// (Java's addAll); every element is encoded before anything is sent.
func (q *Queue[T]) Add(ctx context.Context, vs ...T) error {
	if q == nil {
		return core.NilHandle("queue", "add")
	}
	const op = "add"
	if err := q.check(ctx, op); err != nil {
		return err
	}
	if len(vs) == 0 {
		return nil
	}
	data, err := q.encodeAll(op, vs)
	if err != nil {
		return err
	}
	args := append([]any{"rpush", q.name}, data...)
	return q.failRedis(ctx, op, q.send(ctx, args...))
}

func (b *base[T]) push(ctx context.Context, op, cmd string, v T) error {
	if err := b.check(ctx, op); err != nil {
		return err
	}
	data, err := b.encode(op, v)
	if err != nil {
		return err
	}
	return b.failRedis(ctx, op, b.send(ctx, cmd, b.name, data))
}

// send sends a push once at most: go-redis re-sending one whose reply was
// lost would add the element twice. An error other than a reply from Redis
// leaves it unknown whether the push happened.
func (b *base[T]) send(ctx context.Context, args ...any) error {
	return b.rdb().Process(ctx, noRetry{redis.NewCmd(ctx, args...)})
}

// Poll removes and returns the head, and false when the queue is empty
// (LPOP). It does not wait; see BlockingQueue for that.
func (q *Queue[T]) Poll(ctx context.Context) (T, bool, error) {
	if q == nil {
		return *new(T), false, core.NilHandle("queue", "poll")
	}
	return q.pop(ctx, "poll", "lpush", "lpop", q.name)
}

// Peek returns the head without removing it, and false when the queue is
// empty (LINDEX 0).
func (q *Queue[T]) Peek(ctx context.Context) (T, bool, error) {
	if q == nil {
		return *new(T), false, core.NilHandle("queue", "peek")
	}
	const op = "peek"
	if err := q.check(ctx, op); err != nil {
		var zero T
		return zero, false, err
	}
	return q.peekAt(ctx, op, q.rdb().LIndex(ctx, q.name, 0))
}

// Size returns the number of elements (LLEN).
func (q *Queue[T]) Size(ctx context.Context) (int64, error) {
	if q == nil {
		return *new(int64), core.NilHandle("queue", "size")
	}
	const op = "size"
	if err := q.check(ctx, op); err != nil {
		return 0, err
	}
	n, err := q.rdb().LLen(ctx, q.name).Result()
	if err != nil {
		return 0, q.failRedis(ctx, op, err)
	}
	return n, nil
}

// Contains reports whether an element encodes to the same bytes as v
// (LPOS; Java compares the same bytes with a script).
func (q *Queue[T]) Contains(ctx context.Context, v T) (bool, error) {
	if q == nil {
		return false, core.NilHandle("queue", "contains")
	}
	const op = "contains"
	if err := q.check(ctx, op); err != nil {
		return false, err
	}
	data, err := q.encode(op, v)
	if err != nil {
		return false, err
	}
	err = q.rdb().Do(ctx, "lpos", q.name, data).Err()
	if errors.Is(err, redis.Nil) {
		return false, nil
	}
	if err != nil {
		return false, q.failRedis(ctx, op, err)
	}
	return true, nil
}

// Remove removes the first element that encodes to the same bytes as v
// and reports whether there was one (LREM name 1 v, Java's remove(Object)).
func (q *Queue[T]) Remove(ctx context.Context, v T) (bool, error) {
	if q == nil {
		return false, core.NilHandle("queue", "remove")
	}
	return q.remove(ctx, "remove", 1, v)
}

func (b *base[T]) remove(ctx context.Context, op string, count int64, v T) (bool, error) {
	if err := b.check(ctx, op); err != nil {
		return false, err
	}
	data, err := b.encode(op, v)
	if err != nil {
		return false, err
	}
	n, err := b.rdb().LRem(ctx, b.name, count, data).Result()
	if err != nil {
		return false, b.failRedis(ctx, op, err)
	}
	return n > 0, nil
}

// ReadAll returns every element, head first (LRANGE 0 -1, Java's readAll):
// one reply holding the whole list. For a queue of unknown length prefer
// All, which reads it in pages.
func (q *Queue[T]) ReadAll(ctx context.Context) ([]T, error) {
	if q == nil {
		return *new([]T), core.NilHandle("queue", "read all")
	}
	const op = "read all"
	if err := q.check(ctx, op); err != nil {
		return nil, err
	}
	items, err := q.rdb().LRange(ctx, q.name, 0, -1).Result()
	if err != nil {
		return nil, q.failRedis(ctx, op, err)
	}
	out := make([]T, 0, len(items))
	for _, data := range items {
		v, err := q.decode(op, data)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// All iterates over the elements, head first, reading 100 at a time (LRANGE
// by index, as Java's iterator reads by index). It is not a snapshot: an
// element popped or pushed at the head meanwhile shifts the indexes, so the
// walk may skip or repeat elements, as Java's does. An error (ctx done, a
// closed client, an element the codec cannot read) is yielded once and ends
// the walk.
func (q *Queue[T]) All(ctx context.Context) iter.Seq2[T, error] {
	if q == nil {
		return core.NilSeq2[T]("queue", "all")
	}
	return func(yield func(T, error) bool) {
		const op = "iterate"
		var zero T
		for start := int64(0); ; start += pageSize {
			if err := q.check(ctx, op); err != nil {
				yield(zero, err)
				return
			}
			items, err := q.rdb().LRange(ctx, q.name, start, start+pageSize-1).Result()
			if err != nil {
				yield(zero, q.failRedis(ctx, op, err))
				return
			}
			for _, data := range items {
				v, err := q.decode(op, data)
				if !yield(v, err) || err != nil {
					return
				}
			}
			if len(items) < pageSize {
				return
			}
		}
	}
}

// Delete deletes the queue's key and reports whether it existed (DEL).
func (q *Queue[T]) Delete(ctx context.Context) (bool, error) {
	if q == nil {
		return false, core.NilHandle("queue", "delete")
	}
	const op = "delete"
	if err := q.check(ctx, op); err != nil {
		return false, err
	}
	n, err := q.rdb().Del(ctx, q.name).Result()
	if err != nil {
		return false, q.failRedis(ctx, op, err)
	}
	return n == 1, nil
}

// PollLastAndOfferFirstTo moves the tail of this queue to the head of the
// queue called dest and returns it, and false when this queue is empty
// (RPOPLPUSH, Java's pollLastAndOfferFirstTo). On a cluster both names must
// hash to one slot.
func (q *Queue[T]) PollLastAndOfferFirstTo(ctx context.Context, dest string) (T, bool, error) {
	if q == nil {
		return *new(T), false, core.NilHandle("queue", "poll last and offer first to")
	}
	const op = "poll last and offer first to"
	if err := q.check(ctx, op); err != nil {
		var zero T
		return zero, false, err
	}
	if dest == "" {
		var zero T
		return zero, false, q.fail(op, fmt.Errorf("%w: the destination name must not be empty", core.ErrInvalidName))
	}
	return q.pop(ctx, op, "", "rpoplpush", q.name, dest)
}
