package localcache_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/codec"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/localcache"
)

type lcMap = localcache.LocalCachedMap[string, string]

// Each conditional write, against Redis: its result when it applies and
// when it does not, what Redis holds after, and what the writer's near
// cache holds.
func TestConditionalWrites(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	for _, tc := range []struct {
		name    string
		write   func(m *lcMap, key string) (any, error)
		applied any // the result where "k" holds "old"
		skipped any // the result where "k" is missing, or holds something else
		want    string
		removes bool
	}{
		{"PutIfExists", func(m *lcMap, key string) (any, error) { return orNilS(m.PutIfExists(ctx, key, "new")) },
			"old", nil, "new", false},
		{"Replace", func(m *lcMap, key string) (any, error) { return orNilS(m.Replace(ctx, key, "new")) },
			"old", nil, "new", false},
		{"FastPutIfExists", func(m *lcMap, key string) (any, error) { return m.FastPutIfExists(ctx, key, "new") },
			true, false, "new", false},
		{"FastReplace", func(m *lcMap, key string) (any, error) { return m.FastReplace(ctx, key, "new") },
			true, false, "new", false},
		{"CompareAndReplace", func(m *lcMap, key string) (any, error) { return m.CompareAndReplace(ctx, key, "old", "new") },
			true, false, "new", false},
		{"CompareAndRemove", func(m *lcMap, key string) (any, error) { return m.CompareAndRemove(ctx, key, "old") },
			true, false, "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			name := "cond:" + tc.name
			m := newMap(t, e.c1, name, localcache.Options{})
			got, err := tc.write(m, "k")
			require.NoError(t, err)
			require.Equal(t, tc.skipped, got, "a missing key")
			require.Zero(t, e.raw.Exists(ctx, name).Val(), "nothing stored")

			require.NoError(t, e.raw.HSet(ctx, name, "k", "old", "other", "else").Err())
			got, err = tc.write(m, "other")
			require.NoError(t, err)
			if tc.name == "CompareAndReplace" || tc.name == "CompareAndRemove" {
				require.Equal(t, tc.skipped, got, "another value")
				require.Equal(t, "else", e.raw.HGet(ctx, name, "other").Val())
			}
			got, err = tc.write(m, "k")
			require.NoError(t, err)
			require.Equal(t, tc.applied, got)
			cached, ok := cachedValue(m, "k")
			if tc.removes {
				require.False(t, e.raw.HExists(ctx, name, "k").Val())
				require.False(t, ok, "the writer's near cache dropped it")
				return
			}
			require.Equal(t, tc.want, e.raw.HGet(ctx, name, "k").Val())
			require.True(t, ok)
			require.Equal(t, tc.want, cached, "the writer's near cache holds what it wrote")
		})
	}
}

func orNilS(v string, ok bool, err error) (any, error) {
	if !ok {
		return nil, err
	}
	return v, err
}

// A Go write by each new operation drops the entry from another Go
// instance's near cache (SyncInvalidate), or updates it (SyncUpdate).
func TestNewWritesReachOtherInstances(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	writes := map[string]func(m *lcMap) error{
		"PutIfExists":       func(m *lcMap) error { _, _, err := m.PutIfExists(ctx, "k", "v2"); return err },
		"Replace":           func(m *lcMap) error { _, _, err := m.Replace(ctx, "k", "v2"); return err },
		"FastPutIfExists":   func(m *lcMap) error { _, err := m.FastPutIfExists(ctx, "k", "v2"); return err },
		"FastReplace":       func(m *lcMap) error { _, err := m.FastReplace(ctx, "k", "v2"); return err },
		"CompareAndReplace": func(m *lcMap) error { _, err := m.CompareAndReplace(ctx, "k", "v1", "v2"); return err },
		"CompareAndRemove":  func(m *lcMap) error { _, err := m.CompareAndRemove(ctx, "k", "v1"); return err },
		"AddAndGet": func(m *lcMap) error {
			_, err := m.AddAndGet(ctx, "k", "1")
			return err
		},
	}
	for strategy, sync := range map[string]localcache.SyncStrategy{"invalidate": localcache.SyncInvalidate, "update": localcache.SyncUpdate} {
		for op, write := range writes {
			t.Run(strategy+"/"+op, func(t *testing.T) {
				name := "reach:" + strategy + ":" + op
				a := newMap(t, e.c1, name, localcache.Options{Sync: sync})
				b := newMap(t, e.c2, name, localcache.Options{Sync: sync})
				first := "v1"
				if op == "AddAndGet" {
					first = "1"
				}
				_, _, err := a.Put(ctx, "k", first)
				require.NoError(t, err)
				_, _, err = b.Get(ctx, "k")
				require.NoError(t, err)
				v, _ := cachedValue(b, "k")
				require.Equal(t, first, v)
				require.NoError(t, write(a))
				want := e.raw.HGet(ctx, name, "k").Val()
				// CompareAndRemove and AddAndGet publish an invalidation
				// whatever the strategy (Redisson's scripts).
				redistest.Eventually(t, within, "b's entry changed", func() bool {
					v, ok := cachedValue(b, "k")
					return !ok || v == want && v != first
				})
				got, ok, err := b.Get(ctx, "k")
				require.NoError(t, err)
				require.Equal(t, want != "", ok)
				require.Equal(t, want, got)
			})
		}
	}
}

// AddAndGet: the sum as V, the stored decimal text, a missing key as 0,
// and its failures.
func TestAddAndGet(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	ints := redisson.NewLocalCachedMap[string, int64](e.c1, "add:int", codec.String(), localcache.Options{})
	t.Cleanup(func() { _ = ints.Close() })
	n, err := ints.AddAndGet(ctx, "n", 5)
	require.NoError(t, err)
	require.Equal(t, int64(5), n)
	n, err = ints.AddAndGet(ctx, "n", -7)
	require.NoError(t, err)
	require.Equal(t, int64(-2), n)
	require.Equal(t, "-2", e.raw.HGet(ctx, "add:int", "n").Val())
	require.Equal(t, map[string]int64{"n": -2}, ints.CachedMap())

	floats := redisson.NewLocalCachedMap[string, float64](e.c1, "add:float", codec.String(), localcache.Options{})
	t.Cleanup(func() { _ = floats.Close() })
	f, err := floats.AddAndGet(ctx, "f", 1.5)
	require.NoError(t, err)
	require.Equal(t, 1.5, f)
	_, err = floats.AddAndGet(ctx, "f", 1e-9)
	require.NoError(t, err)
	require.Equal(t, "1.500000001", e.raw.HGet(ctx, "add:float", "f").Val(), "the delta sent as Java's plain decimal")

	_, err = ints.AddAndGet(ctx, "n", 0)
	require.NoError(t, err)
	require.NoError(t, e.raw.HSet(ctx, "add:int", "text", "abc").Err())
	_, err = ints.AddAndGet(ctx, "text", 1)
	require.ErrorIs(t, err, redisson.ErrWrongType)
	require.Contains(t, err.Error(), `local cached map "add:int": add and get:`)

	require.NoError(t, e.raw.HSet(ctx, "add:int", "half", "0.5").Err())
	_, err = ints.AddAndGet(ctx, "half", 1)
	require.ErrorIs(t, err, codec.ErrDecode)
	require.Equal(t, "1.5", e.raw.HGet(ctx, "add:int", "half").Val(), "stored before the reply failed to convert, as in Java")
	_, ok := ints.CachedMap()["half"]
	require.False(t, ok)

	anys := redisson.NewLocalCachedMap[string, any](e.c1, "add:any", codec.String(), localcache.Options{})
	t.Cleanup(func() { _ = anys.Close() })
	_, err = anys.AddAndGet(ctx, "x", nil)
	require.ErrorIs(t, err, redisson.ErrInvalidArgument)
	_, err = anys.AddAndGet(ctx, "x", []int{1})
	require.ErrorIs(t, err, redisson.ErrInvalidArgument)
	strs := newMap(t, e.c1, "add:str", localcache.Options{})
	_, err = strs.AddAndGet(ctx, "x", "1e5")
	require.ErrorIs(t, err, redisson.ErrInvalidArgument)
}

// ReadAll: the near cache's entries and Redis' others, these cached.
func TestReadAll(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	m := newMap(t, e.c1, "all", localcache.Options{})
	require.NoError(t, e.raw.HSet(ctx, "all", "a", "1", "b", "2", "c", "3").Err())
	_, _, err := m.Get(ctx, "a")
	require.NoError(t, err)
	got, err := m.ReadAll(ctx)
	require.NoError(t, err)
	require.Equal(t, map[string]string{"a": "1", "b": "2", "c": "3"}, got)
	require.Equal(t, got, m.CachedMap(), "what it read is cached")

	empty := newMap(t, e.c1, "none", localcache.Options{})
	got, err = empty.ReadAll(ctx)
	require.NoError(t, err)
	require.Empty(t, got)

	require.NoError(t, e.raw.Set(ctx, "str", "x", 0).Err())
	_, err = newMap(t, e.c1, "str", localcache.Options{}).ReadAll(ctx)
	require.ErrorIs(t, err, redisson.ErrWrongType)
	done, cancel := context.WithCancel(ctx)
	cancel()
	_, err = m.ReadAll(done)
	require.ErrorIs(t, err, context.Canceled)
}

// StoreLocalCache: the conditional writes decide on the near cache and
// publish to the other instances; Redis holds nothing.
func TestConditionalWritesLocalCacheStore(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	o := localcache.Options{StoreMode: localcache.StoreLocalCache, Sync: localcache.SyncUpdate}
	a := newMap(t, e.c1, "lcond", o)
	b := newMap(t, e.c2, "lcond", o)
	require.NoError(t, a.Start(ctx))
	require.NoError(t, b.Start(ctx))
	_, ok, err := a.PutIfExists(ctx, "k", "x")
	require.NoError(t, err)
	require.False(t, ok)
	put, err := a.FastPutIfAbsent(ctx, "k", "v1")
	require.NoError(t, err)
	require.True(t, put)
	redistest.Eventually(t, within, "b has v1", func() bool { v, _ := cachedValue(b, "k"); return v == "v1" })
	swapped, err := b.CompareAndReplace(ctx, "k", "nope", "x")
	require.NoError(t, err)
	require.False(t, swapped)
	swapped, err = b.CompareAndReplace(ctx, "k", "v1", "v2")
	require.NoError(t, err)
	require.True(t, swapped)
	redistest.Eventually(t, within, "a has v2", func() bool { v, _ := cachedValue(a, "k"); return v == "v2" })
	old, ok, err := a.Replace(ctx, "k", "v3")
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, "v2", old)
	redistest.Eventually(t, within, "b has v3", func() bool { v, _ := cachedValue(b, "k"); return v == "v3" })
	removed, err := b.CompareAndRemove(ctx, "k", "v3")
	require.NoError(t, err)
	require.True(t, removed)
	redistest.Eventually(t, within, "a dropped k", func() bool { _, ok := cachedValue(a, "k"); return !ok })
	all, err := a.ReadAll(ctx)
	require.NoError(t, err)
	require.Empty(t, all)
	keys, err := e.raw.Keys(ctx, "*lcond*").Result()
	require.NoError(t, err)
	require.Empty(t, keys)
}
