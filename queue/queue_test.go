package queue_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/codec"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/queue"
	"github.com/goredisson/redisson/redissontest"
)

// TestQueueRawState runs every Queue and Deque operation against a list of
// known contents and checks the list Redis holds afterwards and what the
// call returned: the same elements at the same ends as Java's RQueue and
// RDeque leave (collections.json records the commands).
func TestQueueRawState(t *testing.T) {
	srv := redistest.StartServer(t)
	c := redissontest.ClientAt(t, srv.Addr())
	raw := redistest.Client(t, srv)
	ctx := t.Context()
	type op struct {
		name   string
		before []string
		run    func(d *queue.Deque[string]) (any, error)
		want   any
		after  []string
	}
	get := func(v string, ok bool, err error) (any, error) {
		if !ok {
			return nil, err
		}
		return v, err
	}
	cases := []op{
		{"offer", []string{"a"}, func(d *queue.Deque[string]) (any, error) { return nil, d.Offer(ctx, "b") }, nil, []string{"a", "b"}},
		{"add many", []string{"a"}, func(d *queue.Deque[string]) (any, error) { return nil, d.Add(ctx, "b", "c") }, nil, []string{"a", "b", "c"}},
		{"add none", nil, func(d *queue.Deque[string]) (any, error) { return nil, d.Add(ctx) }, nil, nil},
		{"poll", []string{"a", "b"}, func(d *queue.Deque[string]) (any, error) { return get(d.Poll(ctx)) }, "a", []string{"b"}},
		{"poll empty", nil, func(d *queue.Deque[string]) (any, error) { return get(d.Poll(ctx)) }, nil, nil},
		{"peek", []string{"a", "b"}, func(d *queue.Deque[string]) (any, error) { return get(d.Peek(ctx)) }, "a", []string{"a", "b"}},
		{"peek empty", nil, func(d *queue.Deque[string]) (any, error) { return get(d.Peek(ctx)) }, nil, nil},
		{"size", []string{"a", "b"}, func(d *queue.Deque[string]) (any, error) { return d.Size(ctx) }, int64(2), []string{"a", "b"}},
		{"contains", []string{"a", "b"}, func(d *queue.Deque[string]) (any, error) { return d.Contains(ctx, "b") }, true, []string{"a", "b"}},
		{"contains not", []string{"a"}, func(d *queue.Deque[string]) (any, error) { return d.Contains(ctx, "z") }, false, []string{"a"}},
		{"remove", []string{"a", "b", "a"}, func(d *queue.Deque[string]) (any, error) { return d.Remove(ctx, "a") }, true, []string{"b", "a"}},
		{"remove last occurrence", []string{"a", "b", "a"}, func(d *queue.Deque[string]) (any, error) { return d.RemoveLastOccurrence(ctx, "a") }, true, []string{"a", "b"}},
		{"remove absent", []string{"a"}, func(d *queue.Deque[string]) (any, error) { return d.Remove(ctx, "z") }, false, []string{"a"}},
		{"read all", []string{"a", "b"}, func(d *queue.Deque[string]) (any, error) { return d.ReadAll(ctx) }, []string{"a", "b"}, []string{"a", "b"}},
		{"delete", []string{"a"}, func(d *queue.Deque[string]) (any, error) { return d.Delete(ctx) }, true, nil},
		{"delete absent", nil, func(d *queue.Deque[string]) (any, error) { return d.Delete(ctx) }, false, nil},
		{"add first", []string{"a"}, func(d *queue.Deque[string]) (any, error) { return nil, d.AddFirst(ctx, "z") }, nil, []string{"z", "a"}},
		{"add last", []string{"a"}, func(d *queue.Deque[string]) (any, error) { return nil, d.AddLast(ctx, "z") }, nil, []string{"a", "z"}},
		{"peek first", []string{"a", "b"}, func(d *queue.Deque[string]) (any, error) { return get(d.PeekFirst(ctx)) }, "a", []string{"a", "b"}},
		{"peek last", []string{"a", "b"}, func(d *queue.Deque[string]) (any, error) { return get(d.PeekLast(ctx)) }, "b", []string{"a", "b"}},
		{"peek last empty", nil, func(d *queue.Deque[string]) (any, error) { return get(d.PeekLast(ctx)) }, nil, nil},
		{"poll first", []string{"a", "b"}, func(d *queue.Deque[string]) (any, error) { return get(d.PollFirst(ctx)) }, "a", []string{"b"}},
		{"poll last", []string{"a", "b"}, func(d *queue.Deque[string]) (any, error) { return get(d.PollLast(ctx)) }, "b", []string{"a"}},
		{"poll last and offer first to", []string{"a", "b"}, func(d *queue.Deque[string]) (any, error) {
			return get(d.PollLastAndOfferFirstTo(ctx, "other"))
		}, "b", []string{"a"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			require.NoError(t, raw.FlushAll(ctx).Err())
			for _, v := range tc.before {
				require.NoError(t, raw.RPush(ctx, "d", v).Err())
			}
			got, err := tc.run(redisson.NewDeque[string](c, "d", codec.String()))
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
			require.Equal(t, tc.after, nilIfEmpty(list(t, raw, "d")))
		})
	}
	// RPOPLPUSH: the tail went to the head of the other list.
	require.Equal(t, []string{"b"}, list(t, raw, "other"))
}

func nilIfEmpty(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return s
}

// TestQueueIterate walks a list longer than one page and sees every
// element once, in order.
func TestQueueIterate(t *testing.T) {
	srv := redistest.StartServer(t)
	c := redissontest.ClientAt(t, srv.Addr())
	ctx := t.Context()
	q := redisson.NewQueue[int64](c, "numbers", codec.Long())
	var want []int64
	for i := range int64(250) {
		want = append(want, i)
	}
	require.NoError(t, q.Add(ctx, want...))
	var got []int64
	for v, err := range q.All(ctx) {
		require.NoError(t, err)
		got = append(got, v)
	}
	require.Equal(t, want, got)

	// Stopping early is fine; a cancelled ctx ends the walk with its error.
	n := 0
	for range q.All(ctx) {
		if n++; n == 3 {
			break
		}
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	for _, err := range q.All(cctx) {
		require.ErrorIs(t, err, context.Canceled)
	}
}

// TestQueueBadInput: every refusal names the object and sends nothing.
func TestQueueBadInput(t *testing.T) {
	srv := redistest.StartServer(t)
	c := redissontest.ClientAt(t, srv.Addr())
	raw := redistest.Client(t, srv)
	ctx := t.Context()

	// A key of another type: ErrWrongType saying what it holds.
	require.NoError(t, raw.Set(ctx, "str", "x", 0).Err())
	q := redisson.NewBlockingQueue[string](c, "str", codec.String())
	err := q.Offer(ctx, "a")
	require.ErrorIs(t, err, redisson.ErrWrongType)
	require.EqualError(t, err, `blocking queue "str": offer: wrong type: the key holds a string, not a list`)
	_, _, err = q.Poll(ctx, 0)
	require.ErrorIs(t, err, redisson.ErrWrongType)
	_, err = q.Take(ctx)
	require.ErrorIs(t, err, redisson.ErrWrongType)
	require.EqualError(t, err, `blocking queue "str": take: wrong type: the key holds a string, not a list`)
	_, _, err = redisson.NewDeque[string](c, "str", codec.String()).PeekLast(ctx)
	require.EqualError(t, err, `deque "str": peek last: wrong type: the key holds a string, not a list`)

	// A value the codec cannot encode, a nil element: nothing written.
	type bad struct{ F func() }
	jq := redisson.NewQueue[any](c, "jq", codec.JsonJackson(nil))
	err = jq.Offer(ctx, bad{})
	require.ErrorIs(t, err, codec.ErrEncode)
	err = jq.Add(ctx, "ok", bad{})
	require.ErrorIs(t, err, codec.ErrEncode)
	err = jq.Offer(ctx, nil)
	require.ErrorIs(t, err, redisson.ErrInvalidArgument)
	require.EqualError(t, err, `queue "jq": offer: invalid argument: the element must not be nil (Java's queues hold no null)`)
	n, err := raw.Exists(ctx, "jq").Result()
	require.NoError(t, err)
	require.Zero(t, n, "nothing may be written")

	// Handles that cannot work.
	_, _, err = redisson.NewQueue[string](c, "", codec.String()).Poll(ctx)
	require.ErrorIs(t, err, redisson.ErrInvalidName)
	err = redisson.NewDeque[string](c, "d", nil).AddFirst(ctx, "a")
	require.ErrorIs(t, err, redisson.ErrInvalidArgument)
	require.EqualError(t, err, `deque "d": add first: invalid argument: nil codec`)
	_, err = queue.NewBlockingQueue[string](nil, "q", codec.String()).Take(ctx)
	require.ErrorIs(t, err, redisson.ErrInvalidArgument)
	_, _, err = redisson.NewBlockingQueue[string](c, "q", codec.String()).Poll(ctx, -time.Second)
	require.ErrorIs(t, err, redisson.ErrInvalidArgument)

	// A done context: its cause, nothing sent.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	err = redisson.NewQueue[string](c, "q", codec.String()).Offer(cctx, "a")
	require.ErrorIs(t, err, context.Canceled)
	_, err = redisson.NewBlockingQueue[string](c, "q", codec.String()).Take(cctx)
	require.ErrorIs(t, err, context.Canceled)
	n, err = raw.Exists(ctx, "q").Result()
	require.NoError(t, err)
	require.Zero(t, n)
}

// TestQueueClosedClient: after Close every call fails with ErrClosed.
func TestQueueClosedClient(t *testing.T) {
	srv := redistest.StartServer(t)
	c := redissontest.ClientAt(t, srv.Addr())
	ctx := t.Context()
	q := redisson.NewBlockingDeque[string](c, "q", codec.String())
	dq := redisson.NewDelayedQueue[string](c, "dq", codec.String())
	defer dq.Destroy()
	require.NoError(t, c.Close())
	calls := []error{
		q.Offer(ctx, "a"),
		q.PutFirst(ctx, "a"),
		dq.Offer(ctx, "a", time.Second),
	}
	_, err := q.Take(ctx)
	calls = append(calls, err)
	_, _, err = q.PollLast(ctx, time.Second)
	calls = append(calls, err)
	_, err = q.Size(ctx)
	calls = append(calls, err)
	_, _, err = dq.Poll(ctx)
	calls = append(calls, err)
	for i, err := range calls {
		require.ErrorIs(t, err, redisson.ErrClosed, "call %d", i)
	}
	// A delayed queue made after Close has no task and fails too.
	late := redisson.NewDelayedQueue[string](c, "dq2", codec.String())
	late.Destroy()
	require.ErrorIs(t, late.Offer(ctx, "a", 0), redisson.ErrClosed)
}

// TestQueueDecodeFailurePutBack: an element the codec cannot read is put
// back where it was, never lost, and the call says why.
func TestQueueDecodeFailurePutBack(t *testing.T) {
	srv := redistest.StartServer(t)
	c := redissontest.ClientAt(t, srv.Addr())
	raw := redistest.Client(t, srv)
	ctx := t.Context()
	require.NoError(t, raw.RPush(ctx, "n", "x", "7", "y").Err())
	d := redisson.NewBlockingDeque[int64](c, "n", codec.Long())
	_, _, err := d.PollFirst(ctx, 0)
	require.ErrorIs(t, err, codec.ErrDecode)
	require.Equal(t, []string{"x", "7", "y"}, list(t, raw, "n"))
	_, _, err = d.PollLast(ctx, 0)
	require.ErrorIs(t, err, codec.ErrDecode)
	require.Equal(t, []string{"x", "7", "y"}, list(t, raw, "n"))
	_, err = d.TakeLast(ctx)
	require.ErrorIs(t, err, codec.ErrDecode)
	require.Equal(t, []string{"x", "7", "y"}, list(t, raw, "n"))
	_, err = d.Take(ctx)
	require.ErrorIs(t, err, codec.ErrDecode)
	require.Equal(t, []string{"x", "7", "y"}, list(t, raw, "n"))
	require.True(t, errors.Is(err, codec.ErrDecode) && slices.Equal(list(t, raw, "n"), []string{"x", "7", "y"}))
}
