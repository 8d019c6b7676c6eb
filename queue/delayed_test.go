package queue_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/codec"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/redissontest"
)

// TestDelayedEntryLayout: an offer writes Redisson's packed entry to the
// list and the zset (score: due time) and publishes the due time when it is
// the new head only.
func TestDelayedEntryLayout(t *testing.T) {
	srv := redistest.StartServer(t)
	c := redissontest.ClientAt(t, srv.Addr())
	raw := redistest.Client(t, srv)
	ctx := t.Context()
	dq := redisson.NewDelayedQueue[string](c, "dq", codec.String())
	defer dq.Destroy()
	pub := redistest.Capture(t, raw)

	before := time.Now().UnixMilli()
	require.NoError(t, dq.Offer(ctx, "hello", time.Hour))
	after := time.Now().UnixMilli()
	entries := list(t, raw, "redisson_delay_queue:{dq}")
	require.Len(t, entries, 1)
	e := []byte(entries[0])
	require.Len(t, e, 1+8+8+5)
	require.Equal(t, byte(8), e[0])
	require.EqualValues(t, 5, binary.LittleEndian.Uint64(e[9:17]))
	require.Equal(t, "hello", string(e[17:]))
	z, err := raw.ZRangeWithScores(ctx, "redisson_delay_queue_timeout:{dq}", 0, -1).Result()
	require.NoError(t, err)
	require.Len(t, z, 1)
	require.Equal(t, entries[0], z[0].Member)
	require.GreaterOrEqual(t, int64(z[0].Score), before+3600_000)
	require.LessOrEqual(t, int64(z[0].Score), after+3600_000)
	ch, payload := pub.Next(t)
	require.Equal(t, "redisson_delay_queue_channel:{dq}", ch)
	require.Equal(t, fmt.Sprint(int64(z[0].Score)), payload)

	// Equal values stay distinct entries; a later due time publishes
	// nothing.
	require.NoError(t, dq.Offer(ctx, "hello", 2*time.Hour))
	pub.None(t)
	n, err := dq.Size(ctx)
	require.NoError(t, err)
	require.EqualValues(t, 2, n)

	// Peek, Remove, Delete on the entries; the destination is untouched.
	v, ok, err := dq.Peek(ctx)
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, "hello", v)
	removed, err := dq.Remove(ctx, "hello")
	require.NoError(t, err)
	require.True(t, removed)
	require.Len(t, list(t, raw, "redisson_delay_queue:{dq}"), 1)
	zn, err := raw.ZCard(ctx, "redisson_delay_queue_timeout:{dq}").Result()
	require.NoError(t, err)
	require.EqualValues(t, 1, zn)
	removed, err = dq.Remove(ctx, "absent")
	require.NoError(t, err)
	require.False(t, removed)
	deleted, err := dq.Delete(ctx)
	require.NoError(t, err)
	require.True(t, deleted)
	keys, err := raw.Keys(ctx, "*dq*").Result()
	require.NoError(t, err)
	require.Empty(t, keys)
}

// TestDelayedTransferNotBeforeDue: elements reach a waiting consumer of the
// destination, each no earlier than its due time, earliest due first.
func TestDelayedTransferNotBeforeDue(t *testing.T) {
	srv := redistest.StartServer(t)
	producer := redissontest.ClientAt(t, srv.Addr())
	consumer := redissontest.ClientAt(t, srv.Addr())
	ctx := t.Context()
	dq := redisson.NewDelayedQueue[string](producer, "jobs", codec.String())
	defer dq.Destroy()
	dest := redisson.NewBlockingQueue[string](consumer, "jobs", codec.String())

	// In whole ms, as the due times Offer writes and the transfer's "now"
	// are: an element moved at the start of its due ms is on time.
	start := time.UnixMilli(time.Now().UnixMilli())
	delays := map[string]time.Duration{"c": 600 * time.Millisecond, "a": 200 * time.Millisecond, "b": 400 * time.Millisecond}
	for _, v := range []string{"c", "a", "b"} {
		require.NoError(t, dq.Offer(ctx, v, delays[v]))
	}
	tctx, cancel := context.WithTimeout(ctx, within)
	defer cancel()
	for _, want := range []string{"a", "b", "c"} {
		v, err := dest.Take(tctx)
		require.NoError(t, err)
		require.Equal(t, want, v)
		require.GreaterOrEqual(t, time.Since(start), delays[v], "%s moved before it was due", v)
	}
}

// TestDelayedProducerGone: entries due while no transfer task runs wait;
// a new holder moves them all as soon as it has subscribed.
func TestDelayedProducerGone(t *testing.T) {
	srv := redistest.StartServer(t)
	c := redissontest.ClientAt(t, srv.Addr())
	raw := redistest.Client(t, srv)
	ctx := t.Context()
	dq := redisson.NewDelayedQueue[string](c, "late", codec.String())
	dq.Destroy()
	for i := range 150 { // more than one transfer run moves
		require.NoError(t, dq.Offer(ctx, fmt.Sprint(i), 0))
	}
	n, err := raw.LLen(ctx, "late").Result()
	require.NoError(t, err)
	require.Zero(t, n, "moved with no task running")
	again := redisson.NewDelayedQueue[string](c, "late", codec.String())
	defer again.Destroy()
	redistest.Eventually(t, within, "all moved", func() bool { return raw.LLen(ctx, "late").Val() == 150 })
	left, err := again.Size(ctx)
	require.NoError(t, err)
	require.Zero(t, left)
}

// TestDelayedJavaProducer: an entry written by Redisson's own offer script
// (the text Java sends, from the records) is moved by a Go task on time.
func TestDelayedJavaProducer(t *testing.T) {
	srv := redistest.StartServer(t)
	c := redissontest.ClientAt(t, srv.Addr())
	raw := redistest.Client(t, srv)
	ctx := t.Context()
	dq := redisson.NewDelayedQueue[string](c, "dq", codec.String())
	defer dq.Destroy()
	redistest.Eventually(t, within, "task subscribed", func() bool {
		return redistest.NumSub(t, raw, "redisson_delay_queue_channel:{dq}") == 1
	})
	const javaOffer = "local value = struct.pack('Bc0Lc0', string.len(ARGV[2]), ARGV[2], string.len(ARGV[3]), ARGV[3]);" +
		"redis.call('zadd', KEYS[2], ARGV[1], value);redis.call('rpush', KEYS[3], value);" +
		"local v = redis.call('zrange', KEYS[2], 0, 0); if v[1] == value then redis.call('publish', KEYS[4], ARGV[1]); end;"
	// In whole ms, as the score and the transfer's "now" are.
	due := time.UnixMilli(time.Now().Add(300 * time.Millisecond).UnixMilli())
	err := raw.Eval(ctx, javaOffer, []string{"dq", "redisson_delay_queue_timeout:{dq}", "redisson_delay_queue:{dq}", "redisson_delay_queue_channel:{dq}"},
		due.UnixMilli(), []byte{1, 2, 3, 4, 5, 6, 7, 8}, "from-java").Err()
	require.ErrorIs(t, err, redis.Nil)
	v, err := redisson.NewBlockingQueue[string](c, "dq", codec.String()).Take(ctx)
	require.NoError(t, err)
	require.Equal(t, "from-java", v)
	require.False(t, time.Now().Before(due), "moved before it was due")
}

// TestDelayedBadInput: refusals name the object (and the key in the way)
// and write nothing.
func TestDelayedBadInput(t *testing.T) {
	srv := redistest.StartServer(t)
	c := redissontest.ClientAt(t, srv.Addr())
	raw := redistest.Client(t, srv)
	ctx := t.Context()
	dq := redisson.NewDelayedQueue[any](c, "dq", codec.JsonJackson(nil))
	defer dq.Destroy()
	err := dq.Offer(ctx, "a", -time.Second)
	require.ErrorIs(t, err, redisson.ErrInvalidArgument)
	require.EqualError(t, err, `delayed queue "dq": offer: invalid argument: the delay must not be negative, got -1s`)
	err = dq.Offer(ctx, func() {}, time.Second)
	require.ErrorIs(t, err, codec.ErrEncode)
	require.ErrorIs(t, dq.Offer(ctx, nil, time.Second), redisson.ErrInvalidArgument)
	keys, err := raw.Keys(ctx, "*dq*").Result()
	require.NoError(t, err)
	require.Empty(t, keys)

	require.NoError(t, raw.Set(ctx, "redisson_delay_queue_timeout:{dq}", "x", 0).Err())
	err = dq.Offer(ctx, "a", time.Second)
	require.ErrorIs(t, err, redisson.ErrWrongType)
	require.EqualError(t, err, `delayed queue "dq": offer: wrong type: the key "redisson_delay_queue_timeout:{dq}" holds a string, not a zset`)
	_, err = dq.Size(ctx)
	require.NoError(t, err)

	_, _, err = redisson.NewDelayedQueue[string](c, "", codec.String()).Poll(ctx)
	require.ErrorIs(t, err, redisson.ErrInvalidName)
	bad := redisson.NewDelayedQueue[string](c, "x", nil)
	bad.Destroy()
	require.ErrorIs(t, bad.Offer(ctx, "a", 0), redisson.ErrInvalidArgument)
}

// TestDelayedTransferAfterRestart: the task resubscribes after Redis
// restarts and moves what became due meanwhile.
func TestDelayedTransferAfterRestart(t *testing.T) {
	srv := redistest.StartServer(t, redistest.Options{Args: []string{"--appendonly", "yes", "--appendfsync", "always"}})
	c := redissontest.ClientAt(t, srv.Addr())
	raw := redistest.Client(t, srv)
	ctx := t.Context()
	dq := redisson.NewDelayedQueue[string](c, "dq", codec.String())
	defer dq.Destroy()
	require.NoError(t, dq.Offer(ctx, "kept", 500*time.Millisecond))
	require.NoError(t, srv.Restart(ctx))
	redistest.Eventually(t, within, "moved after the restart", func() bool {
		l, _ := raw.LRange(ctx, "dq", 0, -1).Result()
		return len(l) == 1 && l[0] == "kept"
	})
}
