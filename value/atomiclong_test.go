package value_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson/codec"
	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/value"
)

// TestAtomicLongOperations runs every RAtomicLong operation in turn and
// checks its result, the decimal string and PTTL it leaves, and the commands
// it sent, which are RedissonAtomicLong's (3.52.0).
func TestAtomicLongOperations(t *testing.T) {
	ctx := context.Background()
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	cmds := monitor(t, srv)
	a := value.NewAtomicLong(sourceOf(t, srv), "n")
	require.Equal(t, "n", a.Name())

	num := func(v int64, err error) (got, error) { return got{v}, err }
	one := func(ok bool, err error) (got, error) { return got{ok}, err }
	expire := func() { require.NoError(t, raw.PExpire(ctx, "n", 10*time.Second).Err()) }
	for _, st := range []struct {
		name   string
		before func()
		op     func() (got, error)
		want   got
		value  *string // nil: no key
		ttl    ttl
		cmds   []string
	}{
		{"get absent is 0", nil, func() (got, error) { return num(a.Get(ctx)) }, got{int64(0)}, nil, noKey, []string{"get n"}},
		{"increment", nil, func() (got, error) { return num(a.IncrementAndGet(ctx)) }, got{int64(1)}, str("1"), noTTL, []string{"incr n"}},
		{"add", nil, func() (got, error) { return num(a.AddAndGet(ctx, 41)) }, got{int64(42)}, str("42"), noTTL, []string{"incrby n 41"}},
		{"decrement keeps the TTL", expire, func() (got, error) { return num(a.DecrementAndGet(ctx)) }, got{int64(41)}, str("41"), 10000 * ttl(time.Millisecond), []string{"decr n"}},
		{"get and add", nil, func() (got, error) { return num(a.GetAndAdd(ctx, -1)) }, got{int64(41)}, str("40"), 10000 * ttl(time.Millisecond), []string{"incrby n -1"}},
		{"get", nil, func() (got, error) { return num(a.Get(ctx)) }, got{int64(40)}, str("40"), 10000 * ttl(time.Millisecond), []string{"get n"}},
		{"set drops the TTL", nil, func() (got, error) { return got{}, a.Set(ctx, 100) }, got{}, str("100"), noTTL, []string{"set n 100"}},
		{"compare-and-set drops the TTL", expire, func() (got, error) { return one(a.CompareAndSet(ctx, 100, -7)) }, got{true}, str("-7"), noTTL, []string{"script", "lua get n", "lua set n -7"}},
		{"compare-and-set mismatch", nil, func() (got, error) { return one(a.CompareAndSet(ctx, 100, 8)) }, got{false}, str("-7"), noTTL, []string{"script", "lua get n"}},
		{"get and set", expire, func() (got, error) { return num(a.GetAndSet(ctx, 9)) }, got{int64(-7)}, str("9"), noTTL, []string{"getset n 9"}},
		{"get and delete", nil, func() (got, error) { return num(a.GetAndDelete(ctx)) }, got{int64(9)}, nil, noKey, []string{"script", "lua get n", "lua del n"}},
		{"get and delete absent is 0", nil, func() (got, error) { return num(a.GetAndDelete(ctx)) }, got{int64(0)}, nil, noKey, []string{"script", "lua get n", "lua del n"}},
		{"get and set absent is 0", nil, func() (got, error) { return num(a.GetAndSet(ctx, 3)) }, got{int64(0)}, str("3"), noTTL, []string{"getset n 3"}},
		{"delete", nil, func() (got, error) { return one(a.Delete(ctx)) }, got{true}, nil, noKey, []string{"del n"}},
		{"compare-and-set from 0 on absent", nil, func() (got, error) { return one(a.CompareAndSet(ctx, 0, 5)) }, got{true}, str("5"), noTTL, []string{"script", "lua get n", "lua set n 5"}},
		{"remaining TTL none", nil, func() (got, error) {
			d, err := a.RemainTTL(ctx)
			return got{d}, err
		}, got{time.Duration(-1)}, str("5"), noTTL, []string{"pttl n"}},
		{"delete again", nil, func() (got, error) { return one(a.Delete(ctx)) }, got{true}, nil, noKey, []string{"del n"}},
		{"delete absent", nil, func() (got, error) { return one(a.Delete(ctx)) }, got{false}, nil, noKey, []string{"del n"}},
		{"decrement absent", nil, func() (got, error) { return num(a.DecrementAndGet(ctx)) }, got{int64(-1)}, str("-1"), noTTL, []string{"decr n"}},
	} {
		if st.before != nil {
			st.before()
		}
		var res got
		var err error
		sent := cmds.of(t, func() { res, err = st.op() })
		require.NoError(t, err, st.name)
		require.Equal(t, st.want, res, st.name)
		require.Equal(t, st.cmds, sent, "%s: commands", st.name)
		rs := readRaw(t, raw, "n")
		require.Equal(t, st.value != nil, rs.exists, "%s: key exists", st.name)
		if st.value != nil {
			require.Equal(t, *st.value, rs.value, "%s: raw value", st.name)
		}
		requireTTL(t, st.ttl, rs.pttl, st.name)
	}
}

// TestAtomicLongErrors: a non-numeric value, another Redis type, an empty
// name.
func TestAtomicLongErrors(t *testing.T) {
	ctx := context.Background()
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	src := sourceOf(t, srv)
	require.NoError(t, raw.Set(ctx, "text", "abc", 0).Err())
	require.NoError(t, raw.HSet(ctx, "hash", "f", "1").Err())

	text := value.NewAtomicLong(src, "text")
	_, err := text.Get(ctx)
	require.ErrorIs(t, err, core.ErrWrongType, "Java: NumberFormatException")
	require.EqualError(t, err, `atomic long "text": get: wrong type: the key holds the string "abc", not a long`)
	_, err = text.IncrementAndGet(ctx)
	require.ErrorIs(t, err, core.ErrWrongType)
	require.EqualError(t, err, `atomic long "text": increment and get: wrong type: the key holds a string that is not a long`)
	_, err = text.AddAndGet(ctx, 5)
	require.ErrorIs(t, err, core.ErrWrongType)
	got, err := raw.Get(ctx, "text").Result()
	require.NoError(t, err)
	require.Equal(t, "abc", got, "a refused INCRBY changes nothing")
	ok, err := text.CompareAndSet(ctx, 0, 1)
	require.NoError(t, err)
	require.False(t, ok)

	hash := value.NewAtomicLong(src, "hash")
	_, err = hash.Get(ctx)
	require.ErrorIs(t, err, core.ErrWrongType)
	require.EqualError(t, err, `atomic long "hash": get: wrong type: the key holds a hash, not a string`)
	_, err = hash.AddAndGet(ctx, 1)
	require.ErrorIs(t, err, core.ErrWrongType)
	_, err = hash.CompareAndSet(ctx, 0, 1)
	require.ErrorIs(t, err, core.ErrWrongType)
	_, err = hash.GetAndDelete(ctx)
	require.ErrorIs(t, err, core.ErrWrongType)

	_, err = value.NewAtomicLong(src, "").Get(ctx)
	require.ErrorIs(t, err, core.ErrInvalidName)
	require.EqualError(t, err, `atomic long "": get: invalid name: the name must not be empty`)
	_, err = value.NewAtomicLong(nil, "x").Get(ctx)
	require.ErrorIs(t, err, core.ErrInvalidArgument)
}

// TestAtomicLongSharesBucketBytes: an AtomicLong and a Bucket with the Long
// codec are the same key, as RAtomicLong and RBucket<Long>(LongCodec) are.
func TestAtomicLongSharesBucketBytes(t *testing.T) {
	ctx := context.Background()
	srv := redistest.StartServer(t)
	src := sourceOf(t, srv)
	a := value.NewAtomicLong(src, "shared")
	b := value.NewBucket[int64](src, "shared", codec.Long())
	require.NoError(t, a.Set(ctx, -42))
	v, found, err := b.Get(ctx)
	require.NoError(t, err)
	require.True(t, found)
	require.Equal(t, int64(-42), v)
	require.NoError(t, b.Set(ctx, 7))
	n, err := a.IncrementAndGet(ctx)
	require.NoError(t, err)
	require.Equal(t, int64(8), n)
}
