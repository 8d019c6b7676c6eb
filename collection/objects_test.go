package collection_test

import (
	"context"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/codec"
	"github.com/goredisson/redisson/collection"
	"github.com/goredisson/redisson/internal/redistest"
)

// What each List call leaves in Redis.
func TestListRawState(t *testing.T) {
	c, raw, _ := newClient(t)
	ctx := t.Context()
	l := redisson.NewList[string](c, "l", codec.JsonJackson(nil))
	list := func() []string { return raw.LRange(ctx, "l", 0, -1).Val() }

	require.NoError(t, l.Add(ctx, "a"))
	require.NoError(t, l.AddAll(ctx, "b", "c"))
	require.Equal(t, []string{`"a"`, `"b"`, `"c"`}, list())
	require.NoError(t, l.Insert(ctx, 1, "x", "y"))
	require.Equal(t, []string{`"a"`, `"x"`, `"y"`, `"b"`, `"c"`}, list())
	require.NoError(t, l.Insert(ctx, 0, "p", "q"))
	require.Equal(t, []string{`"p"`, `"q"`, `"a"`, `"x"`, `"y"`, `"b"`, `"c"`}, list())
	err := l.Insert(ctx, 99, "z")
	require.ErrorIs(t, err, redisson.ErrInvalidArgument)
	require.ErrorIs(t, l.Insert(ctx, -1, "z"), redisson.ErrInvalidArgument)
	require.Len(t, list(), 7, "a refused insert changes nothing")

	old, err := l.Set(ctx, 0, "P")
	require.NoError(t, err)
	require.Equal(t, "p", old)
	_, err = l.Set(ctx, 99, "z")
	require.ErrorIs(t, err, redisson.ErrInvalidArgument)
	v, ok, err := l.Get(ctx, -1)
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, "c", v)
	_, ok, err = l.Get(ctx, 99)
	require.NoError(t, err)
	require.False(t, ok)

	i, err := l.IndexOf(ctx, "x")
	require.NoError(t, err)
	require.Equal(t, int64(3), i)
	i, err = l.IndexOf(ctx, "zz")
	require.NoError(t, err)
	require.Equal(t, int64(-1), i)

	removed, err := l.Remove(ctx, "x")
	require.NoError(t, err)
	require.True(t, removed)
	v, ok, err = l.RemoveAt(ctx, 0)
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, "P", v)
	v, ok, err = l.RemoveAt(ctx, 2)
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, "y", v)
	_, ok, err = l.RemoveAt(ctx, 99)
	require.NoError(t, err)
	require.False(t, ok)
	require.Equal(t, []string{`"q"`, `"a"`, `"b"`, `"c"`}, list())

	r, err := l.Range(ctx, 1, 2)
	require.NoError(t, err)
	require.Equal(t, []string{"a", "b"}, r)
	n, err := l.Size(ctx)
	require.NoError(t, err)
	require.Equal(t, int64(4), n)

	var got []string
	for v, err := range l.Values(ctx, collection.WithPageSize(3)) {
		require.NoError(t, err)
		got = append(got, v)
	}
	require.Equal(t, []string{"q", "a", "b", "c"}, got)
	for _, err := range l.Values(ctx, collection.WithMatch("*")) {
		require.ErrorIs(t, err, redisson.ErrInvalidArgument)
	}
}

// Redisson's remove(index) marks the element DELETED_BY_REDISSON and
// removes the first such element: with a real element of that text further
// up the list it would remove that one. Ours removes the right one.
func TestListRemoveAtMarker(t *testing.T) {
	c, raw, _ := newClient(t)
	ctx := t.Context()
	l := redisson.NewList[string](c, "l", codec.String())
	require.NoError(t, l.AddAll(ctx, "DELETED_BY_REDISSON", "x", "y"))
	v, ok, err := l.RemoveAt(ctx, 2)
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, "y", v)
	require.Equal(t, []string{"DELETED_BY_REDISSON", "x"}, raw.LRange(ctx, "l", 0, -1).Val())
}

// What each Set call leaves in Redis: members are the encoded bytes, so
// int32(1), int64(1) and "1" are three members under JsonJackson.
func TestSetRawState(t *testing.T) {
	c, raw, srv := newClient(t)
	ctx := t.Context()
	s := redisson.NewSet[any](c, "s", codec.JsonJackson(nil))
	for _, v := range []any{int32(1), int64(1), "1"} {
		added, err := s.Add(ctx, v)
		require.NoError(t, err)
		require.True(t, added)
	}
	added, err := s.Add(ctx, "1")
	require.NoError(t, err)
	require.False(t, added)
	require.ElementsMatch(t, []string{"1", `["java.lang.Long",1]`, `"1"`}, raw.SMembers(ctx, "s").Val())
	n, err := s.AddAll(ctx, "1", "2", "3")
	require.NoError(t, err)
	require.Equal(t, int64(2), n)
	has, err := s.Contains(ctx, int64(1))
	require.NoError(t, err)
	require.True(t, has)
	has, err = s.Contains(ctx, int32(2))
	require.NoError(t, err)
	require.False(t, has)
	removed, err := s.Remove(ctx, "3")
	require.NoError(t, err)
	require.True(t, removed)
	size, err := s.Size(ctx)
	require.NoError(t, err)
	require.Equal(t, int64(4), size)
	all, err := s.ReadAll(ctx)
	require.NoError(t, err)
	require.ElementsMatch(t, []any{int32(1), int64(1), "1", "2"}, all)

	var seen []any
	cmds := redistest.Sent(t, srv, raw, func() {
		for v, err := range s.Values(ctx, collection.WithPageSize(2)) {
			require.NoError(t, err)
			seen = append(seen, v)
		}
	})
	require.ElementsMatch(t, all, seen)
	for _, cmd := range redistest.Mentioning(cmds, "s") {
		require.Equal(t, "sscan", cmd.Command, "iteration never sends SMEMBERS")
	}
}

// What each ScoredSortedSet call leaves in Redis: scores are sent as Java
// prints a double.
func TestScoredSortedSetRawState(t *testing.T) {
	c, raw, srv := newClient(t)
	ctx := t.Context()
	z := redisson.NewScoredSortedSet[string](c, "z", codec.String())
	cmds := redistest.Sent(t, srv, raw, func() {
		for _, e := range []collection.ScoredEntry[string]{{"a", 1.5}, {"b", 9}, {"c", 1e20}, {"d", 1e-5}} {
			added, err := z.Add(ctx, e.Score, e.Value)
			require.NoError(t, err)
			require.True(t, added)
		}
	})
	var scores []string
	for _, cmd := range redistest.Mentioning(cmds, "z") {
		scores = append(scores, cmd.Args[1])
	}
	require.Equal(t, []string{"1.5", "9.0", "100000000000000000000", "0.000010"}, scores)
	added, err := z.Add(ctx, 2, "b")
	require.NoError(t, err)
	require.False(t, added)
	require.Equal(t, []string{"d", "a", "b", "c"}, raw.ZRange(ctx, "z", 0, -1).Val())

	s, err := z.AddScore(ctx, "a", 2)
	require.NoError(t, err)
	require.Equal(t, 3.5, s)
	s, ok, err := z.Score(ctx, "a")
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, 3.5, s)
	_, ok, err = z.Score(ctx, "zz")
	require.NoError(t, err)
	require.False(t, ok)
	r, ok, err := z.Rank(ctx, "a")
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, int64(2), r)
	r, ok, err = z.RevRank(ctx, "a")
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, int64(1), r)
	_, ok, err = z.Rank(ctx, "zz")
	require.NoError(t, err)
	require.False(t, ok)

	vals, err := z.ValueRange(ctx, 0, 1)
	require.NoError(t, err)
	require.Equal(t, []string{"d", "b"}, vals)
	entries, err := z.EntryRange(ctx, -1, -1)
	require.NoError(t, err)
	require.Equal(t, []collection.ScoredEntry[string]{{"c", 1e20}}, entries)

	first, ok, err := z.PollFirst(ctx)
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, "d", first)
	last, ok, err := z.PollLast(ctx)
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, "c", last)
	require.Equal(t, []string{"b", "a"}, raw.ZRange(ctx, "z", 0, -1).Val())
	removed, err := z.Remove(ctx, "b")
	require.NoError(t, err)
	require.True(t, removed)
	has, err := z.Contains(ctx, "a")
	require.NoError(t, err)
	require.True(t, has)

	seen := map[string]float64{}
	for e, err := range z.Entries(ctx) {
		require.NoError(t, err)
		seen[e.Value] = e.Score
	}
	require.Equal(t, map[string]float64{"a": 3.5}, seen)

	_, ok, err = redisson.NewScoredSortedSet[string](c, "empty", codec.String()).PollFirst(ctx)
	require.NoError(t, err)
	require.False(t, ok)

	for _, bad := range []float64{nan(), 1 / zero()} {
		_, err := z.Add(ctx, bad, "x")
		require.ErrorIs(t, err, redisson.ErrInvalidArgument)
		_, err = z.AddScore(ctx, "x", bad)
		require.ErrorIs(t, err, redisson.ErrInvalidArgument)
	}
}

func zero() float64 { return 0 }

// Bad input gets a clear error and leaves Redis untouched: a key of
// another type, a value the codec cannot encode (all arguments are encoded
// before anything is sent), a nil codec, an empty name, a done context, a
// closed client.
func TestBadInput(t *testing.T) {
	c, raw, _ := newClient(t)
	ctx := t.Context()
	require.NoError(t, raw.Set(ctx, "str", "x", 0).Err())
	cd := codec.JsonJackson(nil)

	wrongType := map[string]func() error{
		"map":  func() error { _, _, err := redisson.NewMap[string, any](c, "str", cd).Put(ctx, "k", "v"); return err },
		"list": func() error { return redisson.NewList[string](c, "str", cd).Add(ctx, "v") },
		"set":  func() error { _, err := redisson.NewSet[string](c, "str", cd).Add(ctx, "v"); return err },
		"scored sorted set": func() error {
			_, _, err := redisson.NewScoredSortedSet[string](c, "str", cd).PollFirst(ctx)
			return err
		},
	}
	want := map[string]string{
		"map":               `map "str": put: wrong type: the key holds a string, not a hash`,
		"list":              `list "str": add: wrong type: the key holds a string, not a list`,
		"set":               `set "str": add: wrong type: the key holds a string, not a set`,
		"scored sorted set": `scored sorted set "str": poll first: wrong type: the key holds a string, not a zset`,
	}
	for kind, call := range wrongType {
		err := call()
		require.ErrorIs(t, err, redisson.ErrWrongType, kind)
		require.EqualError(t, err, want[kind])
	}
	for v, err := range redisson.NewMap[string, any](c, "str", cd).Entries(ctx) {
		require.Zero(t, v)
		require.ErrorIs(t, err, redisson.ErrWrongType)
	}
	require.Equal(t, "x", raw.Get(ctx, "str").Val())

	// One value the codec cannot encode among good ones: nothing written.
	bad := func() {}
	unencodable := map[string]func() error{
		"map put all": func() error {
			return redisson.NewMap[string, any](c, "m", cd).PutAll(ctx, map[string]any{"a": 1, "b": bad, "c": 3})
		},
		"list add all": func() error { return redisson.NewList[any](c, "l", cd).AddAll(ctx, "a", bad) },
		"list insert":  func() error { return redisson.NewList[any](c, "l", cd).Insert(ctx, 0, "a", bad) },
		"set add all":  func() error { _, err := redisson.NewSet[any](c, "s", cd).AddAll(ctx, "a", bad); return err },
		"zset add":     func() error { _, err := redisson.NewScoredSortedSet[any](c, "z", cd).Add(ctx, 1, bad); return err },
	}
	for name, call := range unencodable {
		err := call()
		require.ErrorIs(t, err, codec.ErrEncode, name)
		require.ErrorIs(t, err, codec.ErrUnsupportedType, name)
	}
	require.Zero(t, raw.Exists(ctx, "m", "l", "s", "z").Val(), "nothing written")

	// Handles that cannot work.
	invalid := map[string]struct {
		call func() error
		is   error
		text string
	}{
		"nil codec": {func() error { _, err := redisson.NewSet[string](c, "s", nil).Size(ctx); return err },
			redisson.ErrInvalidArgument, `set "s": size: invalid argument: nil codec`},
		"empty name": {func() error { return redisson.NewList[string](c, "", cd).Add(ctx, "x") },
			redisson.ErrInvalidName, `list "": add: invalid name: the name must not be empty`},
		"nil source": {func() error { _, err := collection.NewSet[string](nil, "s", cd).Size(ctx); return err },
			redisson.ErrInvalidArgument, ""},
	}
	for name, tc := range invalid {
		err := tc.call()
		require.ErrorIs(t, err, tc.is, name)
		if tc.text != "" {
			require.EqualError(t, err, tc.text, name)
		}
	}

	done, cancel := context.WithCancel(ctx)
	cancel()
	err := redisson.NewList[string](c, "l", cd).Add(done, "x")
	require.ErrorIs(t, err, context.Canceled)
	require.EqualError(t, err, `list "l": add: context canceled`)
	require.Zero(t, raw.Exists(ctx, "l").Val())
}

// After Close every call fails with ErrClosed, iterations included.
func TestClosedClient(t *testing.T) {
	srv := redistest.StartServer(t)
	c, err := redisson.New(redistest.Client(t, srv))
	require.NoError(t, err)
	m := redisson.NewMap[string, string](c, "m", codec.String())
	ctx := t.Context()
	_, err = m.FastPut(ctx, "k", "v")
	require.NoError(t, err)
	require.NoError(t, c.Close())

	_, _, err = m.Get(ctx, "k")
	require.ErrorIs(t, err, redisson.ErrClosed)
	require.EqualError(t, err, `map "m": get: client is closed`)
	for _, err := range m.Entries(ctx) {
		require.ErrorIs(t, err, redisson.ErrClosed)
	}
	_, err = redisson.NewScoredSortedSet[string](c, "z", codec.String()).Size(ctx)
	require.ErrorIs(t, err, redisson.ErrClosed)
}

// A polled member the codec cannot decode is gone from Redis (Java's poll
// removes it first too): the error quotes all of its bytes.
func TestPollUndecodable(t *testing.T) {
	c, raw, _ := newClient(t)
	ctx := t.Context()
	require.NoError(t, raw.ZAdd(ctx, "z", redis.Z{Score: 1, Member: "not json at all"}).Err())
	_, ok, err := redisson.NewScoredSortedSet[int32](c, "z", codec.JsonJackson(nil)).PollFirst(ctx)
	require.False(t, ok)
	require.ErrorIs(t, err, codec.ErrDecode)
	require.Contains(t, err.Error(), `scored sorted set "z": poll first: removed member "not json at all", which cannot be decoded`)
}

// The same calls over RESP2 (a go-redis client with Protocol 2), whose
// replies differ from RESP3's (scores as text, HGETALL as a flat array).
func TestRESP2(t *testing.T) {
	srv := redistest.StartServer(t)
	c, err := redisson.New(redistest.Client(t, srv, func(o *redis.Options) { o.Protocol = 2 }))
	require.NoError(t, err)
	defer c.Close()
	ctx := t.Context()
	z := redisson.NewScoredSortedSet[string](c, "z", codec.String())
	_, err = z.Add(ctx, 1.5, "a")
	require.NoError(t, err)
	s, err := z.AddScore(ctx, "a", 1)
	require.NoError(t, err)
	require.Equal(t, 2.5, s)
	s, ok, err := z.Score(ctx, "a")
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, 2.5, s)
	entries, err := z.EntryRange(ctx, 0, -1)
	require.NoError(t, err)
	require.Equal(t, []collection.ScoredEntry[string]{{"a", 2.5}}, entries)
	for e, err := range z.Entries(ctx) {
		require.NoError(t, err)
		require.Equal(t, collection.ScoredEntry[string]{Value: "a", Score: 2.5}, e)
	}
	m := redisson.NewMap[string, string](c, "m", codec.String())
	require.NoError(t, m.PutAll(ctx, map[string]string{"a": "1", "b": "2"}))
	all, err := m.ReadAll(ctx)
	require.NoError(t, err)
	require.Equal(t, map[string]string{"a": "1", "b": "2"}, all)
	got, err := m.GetAll(ctx, "a", "zz")
	require.NoError(t, err)
	require.Equal(t, map[string]string{"a": "1"}, got)
	n, err := m.AddAndGet(ctx, "a", "0.5")
	require.NoError(t, err)
	require.Equal(t, "1.5", n)
}
