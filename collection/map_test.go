package collection_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/codec"
	"github.com/goredisson/redisson/collection"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/redissontest"
)

// newClient starts a redis-server and returns a Client on it and a raw
// connection to read what it stored.
func newClient(t *testing.T) (*redisson.Client, *redis.Client, *redistest.Server) {
	t.Helper()
	srv := redistest.StartServer(t)
	return redissontest.ClientAt(t, srv.Addr()), redistest.Client(t, srv), srv
}

func jsonCodec() codec.Codec {
	return codec.JsonJackson(codec.NewTypes().MustRegister("org.goredisson.interop.Person", person{}))
}

// What each Map call leaves in Redis, read over a raw connection: the hash
// fields are the encoded keys, the values the encoded values.
func TestMapRawState(t *testing.T) {
	c, raw, _ := newClient(t)
	ctx := t.Context()
	m := redisson.NewMap[string, any](c, "m", jsonCodec())
	hash := func() map[string]string { return raw.HGetAll(ctx, "m").Val() }

	prev, ok, err := m.Put(ctx, "a", "1")
	require.NoError(t, err)
	require.False(t, ok)
	require.Nil(t, prev)
	require.Equal(t, map[string]string{`"a"`: `"1"`}, hash())

	prev, ok, err = m.Put(ctx, "a", int64(2))
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, "1", prev)
	require.Equal(t, map[string]string{`"a"`: `["java.lang.Long",2]`}, hash())

	old, present, err := m.PutIfAbsent(ctx, "a", "x")
	require.NoError(t, err)
	require.True(t, present)
	require.Equal(t, int64(2), old)
	_, present, err = m.PutIfAbsent(ctx, "b", int32(10))
	require.NoError(t, err)
	require.False(t, present)
	require.Equal(t, map[string]string{`"a"`: `["java.lang.Long",2]`, `"b"`: `10`}, hash())

	isNew, err := m.FastPut(ctx, "c", "x")
	require.NoError(t, err)
	require.True(t, isNew)
	isNew, err = m.FastPut(ctx, "c", "y")
	require.NoError(t, err)
	require.False(t, isNew)
	stored, err := m.FastPutIfAbsent(ctx, "c", "z")
	require.NoError(t, err)
	require.False(t, stored)
	require.Equal(t, `"y"`, hash()[`"c"`])

	require.NoError(t, m.PutAll(ctx, map[string]any{"d": true, "e": 1.5}))
	require.Equal(t, map[string]string{`"a"`: `["java.lang.Long",2]`, `"b"`: `10`, `"c"`: `"y"`, `"d"`: `true`, `"e"`: `1.5`}, hash())

	got, err := m.GetAll(ctx, "a", "d", "zz")
	require.NoError(t, err)
	require.Equal(t, map[string]any{"a": int64(2), "d": true}, got)
	v, ok, err := m.Get(ctx, "e")
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, 1.5, v)
	_, ok, err = m.Get(ctx, "zz")
	require.NoError(t, err)
	require.False(t, ok)
	has, err := m.ContainsKey(ctx, "b")
	require.NoError(t, err)
	require.True(t, has)
	n, err := m.Size(ctx)
	require.NoError(t, err)
	require.Equal(t, int64(5), n)

	removed, ok, err := m.Remove(ctx, "c")
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, "y", removed)
	_, ok, err = m.Remove(ctx, "c")
	require.NoError(t, err)
	require.False(t, ok)
	count, err := m.FastRemove(ctx, "d", "e", "zz")
	require.NoError(t, err)
	require.Equal(t, int64(2), count)
	require.Equal(t, map[string]string{`"a"`: `["java.lang.Long",2]`, `"b"`: `10`}, hash())

	all, err := m.ReadAll(ctx)
	require.NoError(t, err)
	require.Equal(t, map[string]any{"a": int64(2), "b": int32(10)}, all)

	existed, err := m.Delete(ctx)
	require.NoError(t, err)
	require.True(t, existed)
	require.Zero(t, raw.Exists(ctx, "m").Val())
}

// AddAndGet sends HINCRBYFLOAT with the delta as Java prints it and returns
// the new value in the value type; a stored Java Long is not a number to
// Redis.
func TestMapAddAndGet(t *testing.T) {
	c, raw, srv := newClient(t)
	ctx := t.Context()

	ints := redisson.NewMap[string, int64](c, "ints", codec.Long(), collection.WithKeyCodec(codec.String()))
	n, err := ints.AddAndGet(ctx, "n", 5)
	require.NoError(t, err)
	require.Equal(t, int64(5), n)
	n, err = ints.AddAndGet(ctx, "n", -7)
	require.NoError(t, err)
	require.Equal(t, int64(-2), n)
	require.Equal(t, "-2", raw.HGet(ctx, "ints", "n").Val())

	floats := redisson.NewMap[string, float64](c, "floats", jsonCodec())
	cmds := redistest.Sent(t, srv, raw, func() {
		f, err := floats.AddAndGet(ctx, "f", 2)
		require.NoError(t, err)
		require.Equal(t, 2.0, f)
	})
	require.Equal(t, []string{`"f"`, "2.0"}, redistest.Mentioning(cmds, "floats")[0].Args[1:], "a float64 delta as a Java Double")
	f, err := floats.AddAndGet(ctx, "f", 0.5)
	require.NoError(t, err)
	require.Equal(t, 2.5, f)
	got, _, err := floats.Get(ctx, "f")
	require.NoError(t, err)
	require.Equal(t, 2.5, got)

	// An integer value type whose new value has a fraction: stored, then
	// an error (Java's Integer.parseInt throws the same way).
	mixed := redisson.NewMap[string, int32](c, "floats", jsonCodec())
	_, err = mixed.AddAndGet(ctx, "f", 1)
	require.ErrorIs(t, err, codec.ErrDecode)
	require.Equal(t, "3.5", raw.HGet(ctx, "floats", "\"f\"").Val())

	text := redisson.NewMap[string, string](c, "text", codec.String())
	s, err := text.AddAndGet(ctx, "n", "1.25")
	require.NoError(t, err)
	require.Equal(t, "1.25", s)
	_, err = text.AddAndGet(ctx, "n", "1e3")
	require.ErrorIs(t, err, redisson.ErrInvalidArgument)

	dec := redisson.NewMap[string, codec.Decimal](c, "dec", codec.String())
	d, err := dec.AddAndGet(ctx, "n", "10.5")
	require.NoError(t, err)
	require.Equal(t, codec.Decimal("10.5"), d)

	anyMap := redisson.NewMap[string, any](c, "any", jsonCodec())
	a, err := anyMap.AddAndGet(ctx, "n", int32(3))
	require.NoError(t, err)
	require.Equal(t, int32(3), a)

	// A Java Long (["java.lang.Long",10]) is no number to Redis: nothing
	// changes.
	_, _, err = anyMap.Put(ctx, "l", int64(10))
	require.NoError(t, err)
	_, err = anyMap.AddAndGet(ctx, "l", int64(1))
	require.ErrorIs(t, err, redisson.ErrWrongType)
	require.Contains(t, err.Error(), `map "any": add and get: the value is not a number`)
	require.Equal(t, `["java.lang.Long",10]`, raw.HGet(ctx, "any", `"l"`).Val())

	for name, call := range map[string]func() error{
		"a struct value type": func() error {
			_, err := redisson.NewMap[string, person](c, "p", jsonCodec()).AddAndGet(ctx, "k", person{})
			return err
		},
		"NaN": func() error {
			_, err := floats.AddAndGet(ctx, "f", nan())
			return err
		},
		"a nil delta in an any map": func() error {
			_, err := anyMap.AddAndGet(ctx, "n", nil)
			return err
		},
	} {
		require.ErrorIs(t, call(), redisson.ErrInvalidArgument, name)
	}
}

func nan() float64 { var z float64; return z / z }

// A map whose keys have a codec of their own (Java's CompositeCodec).
func TestMapKeyCodec(t *testing.T) {
	c, raw, _ := newClient(t)
	ctx := t.Context()
	m := redisson.NewMap[string, int32](c, "km", jsonCodec(), collection.WithKeyCodec(codec.String()))
	_, _, err := m.Put(ctx, "a", 1)
	require.NoError(t, err)
	require.Equal(t, map[string]string{"a": "1"}, raw.HGetAll(ctx, "km").Val())
	for e, err := range m.Entries(ctx) {
		require.NoError(t, err)
		require.Equal(t, collection.Entry[string, int32]{Key: "a", Value: 1}, e)
	}
	_, _, err = redisson.NewMap[string, int32](c, "km", jsonCodec(), collection.WithKeyCodec(nil)).Get(ctx, "a")
	require.ErrorIs(t, err, redisson.ErrInvalidArgument)
}

// Iteration pages through HSCAN (never HGETALL), sees every entry of a
// map that does not change, and honours WithMatch and WithPageSize.
func TestMapIteration(t *testing.T) {
	c, raw, srv := newClient(t)
	ctx := t.Context()
	m := redisson.NewMap[string, int32](c, "big", codec.JsonJackson(nil))
	const n = 1000
	entries := map[string]int32{}
	for i := range n {
		entries[fmt.Sprintf("k%04d", i)] = int32(i)
	}
	require.NoError(t, m.PutAll(ctx, entries))

	seen := map[string]int32{}
	cmds := redistest.Sent(t, srv, raw, func() {
		for e, err := range m.Entries(ctx, collection.WithPageSize(100)) {
			require.NoError(t, err)
			seen[e.Key] = e.Value
		}
	})
	require.Equal(t, entries, seen)
	for _, cmd := range redistest.Mentioning(cmds, "big") {
		require.Equal(t, "hscan", cmd.Command)
		require.Equal(t, []string{"COUNT", "100"}, cmd.Args[len(cmd.Args)-2:])
	}

	var keys []string
	for k, err := range m.Keys(ctx, collection.WithMatch(`"k000*`)) {
		require.NoError(t, err)
		keys = append(keys, k)
	}
	require.ElementsMatch(t, []string{"k0000", "k0001", "k0002", "k0003", "k0004", "k0005", "k0006", "k0007", "k0008", "k0009"}, keys)

	sum := int32(0)
	for v, err := range m.Values(ctx) {
		require.NoError(t, err)
		sum += v
	}
	require.Equal(t, int32(n*(n-1)/2), sum)

	// Breaking out of the loop stops the scan.
	cmds = redistest.Sent(t, srv, raw, func() {
		for _, err := range m.Entries(ctx) {
			require.NoError(t, err)
			break
		}
	})
	require.Len(t, redistest.Mentioning(cmds, "big"), 1)

	for e, err := range m.Entries(ctx, collection.WithPageSize(0)) {
		require.ErrorIs(t, err, redisson.ErrInvalidArgument)
		require.Zero(t, e)
	}
}

// A value the codec cannot read ends the iteration with an error naming
// it: nothing is skipped in silence.
func TestMapIterationDecodeError(t *testing.T) {
	c, raw, _ := newClient(t)
	ctx := t.Context()
	m := redisson.NewMap[string, int32](c, "bad", codec.JsonJackson(nil))
	require.NoError(t, raw.HSet(ctx, "bad", `"a"`, "1", `"b"`, "not json", `"c"`, "3").Err())
	var got []int32
	var last error
	for e, err := range m.Entries(ctx) {
		if err != nil {
			last = err
			continue // the error is the last pair: the loop ends by itself
		}
		got = append(got, e.Value)
	}
	require.ErrorIs(t, last, codec.ErrDecode)
	require.Contains(t, last.Error(), `map "bad": iterate entries: value of key "\"b\""`)
	require.Equal(t, []int32{1}, got, "entries before the bad one are yielded, none after")

	_, err := m.ReadAll(ctx)
	require.ErrorIs(t, err, codec.ErrDecode)
	_, err = m.GetAll(ctx, "a", "b")
	require.ErrorIs(t, err, codec.ErrDecode)
}

// A cancelled context ends an iteration with its cause, at the next
// element.
func TestIterationCancelled(t *testing.T) {
	c, _, _ := newClient(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	s := redisson.NewSet[int32](c, "s", codec.JsonJackson(nil))
	for i := range 50 {
		_, err := s.Add(ctx, int32(i))
		require.NoError(t, err)
	}
	n := 0
	var last error
	for _, err := range s.Values(ctx) {
		if err != nil {
			last = err
			continue
		}
		if n++; n == 3 {
			cancel()
		}
	}
	require.Equal(t, 3, n)
	require.ErrorIs(t, last, context.Canceled)
}

func TestMapNilRefused(t *testing.T) {
	c, raw, _ := newClient(t)
	ctx := t.Context()
	m := redisson.NewMap[*string, *person](c, "nil", jsonCodec())
	k := "k"
	_, _, err := m.Put(ctx, &k, nil)
	require.ErrorIs(t, err, redisson.ErrInvalidArgument)
	require.EqualError(t, err, `map "nil": put: invalid argument: the value must not be nil (Redisson refuses null)`)
	_, _, err = m.Get(ctx, nil)
	require.ErrorIs(t, err, redisson.ErrInvalidArgument)
	require.Zero(t, raw.Exists(ctx, "nil").Val())
	require.False(t, errors.Is(err, redisson.ErrWrongType))
}

func startCluster(t *testing.T) *redis.ClusterClient {
	t.Helper()
	return redistest.StartCluster(t, 3).Client(t)
}
