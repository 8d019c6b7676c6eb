package localcache_test

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/codec"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/localcache"
	"github.com/goredisson/redisson/observe"
)

// within bounds every wait for a message to arrive.
const within = 5 * time.Second

// k1Hash is Redisson's Hash.hash128toArray of "k1" under StringCodec (the
// records' notes, localcachedmap.json).
const k1Hash = "f6c0bc2a9320f05f0a05bc601e7a69d7"

// env is one redis-server, two named clients on it and a raw connection.
type env struct {
	srv    *redistest.Server
	raw    *redis.Client
	c1, c2 *redisson.Client
}

func newEnv(t *testing.T) *env {
	t.Helper()
	srv := redistest.StartServer(t)
	e := &env{srv: srv, raw: redistest.Client(t, srv)}
	e.c1 = e.client(t, "c1")
	e.c2 = e.client(t, "c2")
	return e
}

func (e *env) client(t *testing.T, name string) *redisson.Client {
	t.Helper()
	rdb := redistest.Client(t, e.srv, func(o *redis.Options) { o.ClientName = name })
	c, err := redisson.New(rdb)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func newMap(t *testing.T, c *redisson.Client, name string, o localcache.Options) *localcache.LocalCachedMap[string, string] {
	t.Helper()
	m := redisson.NewLocalCachedMap[string, string](c, name, codec.String(), o)
	t.Cleanup(func() { _ = m.Close() })
	return m
}

func cachedValue(m *localcache.LocalCachedMap[string, string], key string) (string, bool) {
	v, ok := m.CachedMap()[key]
	return v, ok
}

// Two Go instances on one map, each sync strategy: what the second's near
// cache holds after the first writes.
func TestTwoInstancesSeeEachOthersWrites(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	for _, tc := range []struct {
		name string
		sync localcache.SyncStrategy
	}{
		{"invalidate", localcache.SyncInvalidate},
		{"update", localcache.SyncUpdate},
		{"none", localcache.SyncNone},
	} {
		t.Run(tc.name, func(t *testing.T) {
			name := "lcm:" + tc.name
			a := newMap(t, e.c1, name, localcache.Options{Sync: tc.sync})
			b := newMap(t, e.c2, name, localcache.Options{Sync: tc.sync})
			_, _, err := a.Put(ctx, "k", "v1")
			require.NoError(t, err)
			v, ok, err := b.Get(ctx, "k")
			require.NoError(t, err)
			require.True(t, ok)
			require.Equal(t, "v1", v)
			cached, _ := cachedValue(b, "k")
			require.Equal(t, "v1", cached, "a miss fills the near cache")

			_, _, err = a.Put(ctx, "k", "v2")
			require.NoError(t, err)
			switch tc.sync {
			case localcache.SyncInvalidate:
				redistest.Eventually(t, within, "b's entry dropped", func() bool { _, ok := cachedValue(b, "k"); return !ok })
				v, _, err = b.Get(ctx, "k")
				require.NoError(t, err)
				require.Equal(t, "v2", v)
			case localcache.SyncUpdate:
				redistest.Eventually(t, within, "b's entry updated", func() bool { v, _ := cachedValue(b, "k"); return v == "v2" })
				before := b.Stats().Hits
				v, _, err = b.Get(ctx, "k")
				require.NoError(t, err)
				require.Equal(t, "v2", v)
				require.Equal(t, before+1, b.Stats().Hits, "served by the near cache")
			case localcache.SyncNone:
				// Redisson's NONE: nothing is published, b keeps what it read.
				v, _, err = b.Get(ctx, "k")
				require.NoError(t, err)
				require.Equal(t, "v1", v)
				require.Zero(t, redistest.NumSub(t, e.raw, "{"+name+"}:topic"))
			}
			// The writer's own near cache holds what it wrote.
			own, _ := cachedValue(a, "k")
			require.Equal(t, "v2", own)
		})
	}
}

// The messages a Go write publishes, byte for byte as Redisson's
// LocalCachedMessageCodec writes them (interop-java README, "Cache and
// utility modes"; localcachedmap.json).
func TestMessageBytes(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	pub := redistest.Capture(t, e.raw)
	for _, tc := range []struct {
		name  string
		sync  localcache.SyncStrategy
		write func(m *localcache.LocalCachedMap[string, string]) error
		want  func(id string) string
	}{
		{"invalidate put", localcache.SyncInvalidate, func(m *localcache.LocalCachedMap[string, string]) error {
			_, _, err := m.Put(ctx, "k1", "v1")
			return err
		}, func(id string) string { return "01" + id + "00000001" + k1Hash }},
		{"update put", localcache.SyncUpdate, func(m *localcache.LocalCachedMap[string, string]) error {
			_, _, err := m.Put(ctx, "k1", "v1")
			return err
		}, func(id string) string { return "02" + id + "00000002" + "6b31" + "00000002" + "7631" }},
		{"remove under update", localcache.SyncUpdate, func(m *localcache.LocalCachedMap[string, string]) error {
			_, _, err := m.Remove(ctx, "k1")
			return err
		}, func(id string) string { return "01" + id + "00000001" + k1Hash }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			name := "bytes:" + strings.ReplaceAll(tc.name, " ", "-")
			m := newMap(t, e.c1, name, localcache.Options{Sync: tc.sync})
			if tc.name == "remove under update" {
				require.NoError(t, e.raw.HSet(ctx, name, "k1", "v0").Err())
			}
			require.NoError(t, tc.write(m))
			ch, payload := pub.Next(t)
			require.Equal(t, "{"+name+"}:topic", ch)
			id := m.InstanceID()
			require.Equal(t, tc.want(hex.EncodeToString(id[:])), hex.EncodeToString([]byte(payload)))
		})
	}
	t.Run("clear", func(t *testing.T) {
		m := newMap(t, e.c1, "bytes:clear", localcache.Options{})
		require.NoError(t, e.raw.HSet(ctx, "bytes:clear", "k1", "v0").Err())
		existed, err := m.Delete(ctx)
		require.NoError(t, err)
		require.True(t, existed)
		_, payload := pub.Next(t)
		id := m.InstanceID()
		require.Len(t, payload, 34)
		require.Equal(t, "00"+hex.EncodeToString(id[:]), hex.EncodeToString([]byte(payload[:17])))
		require.Equal(t, byte(0), payload[33], "Redisson's clear() asks no semaphore release")
	})
}

// A message from another instance drops the keys it names; one carrying
// this instance's own id is skipped; one nobody understands clears the
// near cache.
func TestForeignAndGarbledMessages(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	m := newMap(t, e.c1, "foreign", localcache.Options{})
	require.NoError(t, e.raw.HSet(ctx, "foreign", "k1", "v1", "k2", "v2").Err())
	fill := func() {
		t.Helper()
		for _, k := range []string{"k1", "k2"} {
			_, _, err := m.Get(ctx, k)
			require.NoError(t, err)
		}
		require.Equal(t, 2, m.CachedSize())
	}
	hash, err := hex.DecodeString(k1Hash)
	require.NoError(t, err)
	other := make([]byte, 16)
	other[0] = 0x42
	invalidate := func(sender []byte) string {
		msg := append([]byte{0x01}, sender...)
		msg = append(msg, 0, 0, 0, 1)
		return string(append(msg, hash...))
	}
	fill()

	own := m.InstanceID()
	require.NoError(t, e.raw.Publish(ctx, "{foreign}:topic", invalidate(own[:])).Err())
	require.NoError(t, e.raw.Publish(ctx, "{foreign}:topic", invalidate(other)).Err())
	redistest.Eventually(t, within, "k1 dropped", func() bool { _, ok := cachedValue(m, "k1"); return !ok })
	require.Equal(t, 1, m.CachedSize(), "k2 stays; the own message changed nothing")
	require.Equal(t, uint64(2), m.Stats().Messages)

	for _, garbled := range []string{"", "\x07junk", "\x01short", invalidate(other) + "x", "\x02" + string(other) + "\x00\x00\x00\x09k"} {
		fill()
		require.NoError(t, e.raw.Publish(ctx, "{foreign}:topic", garbled).Err())
		redistest.Eventually(t, within, fmt.Sprintf("cleared by %q", garbled), func() bool { return m.CachedSize() == 0 })
	}
}

// A killed pub/sub connection: while it is down the near cache is not
// read, and once the subscription is back a value changed meanwhile
// without a message reaching this instance is read fresh.
func TestKilledSubscriptionLeavesNoStaleValue(t *testing.T) {
	for _, tc := range []struct {
		name string
		o    localcache.Options
	}{
		{"reconnect none", localcache.Options{}},
		{"reconnect clear", localcache.Options{Reconnection: localcache.ReconnectClear}},
		{"reconnect load", localcache.Options{Reconnection: localcache.ReconnectLoad}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			ctx := t.Context()
			m := newMap(t, e.c2, "killed", tc.o)
			require.NoError(t, e.raw.HSet(ctx, "killed", "k1", "v1").Err())
			v, _, err := m.Get(ctx, "k1")
			require.NoError(t, err)
			require.Equal(t, "v1", v)
			// A write whose message this instance misses, in the updates
			// log as a ReconnectLoad writer leaves it.
			require.NoError(t, e.raw.HSet(ctx, "killed", "k1", "v2").Err())
			hash, _ := hex.DecodeString(k1Hash)
			require.NoError(t, e.raw.ZAdd(ctx, "redisson__cache_updates_log:{killed}",
				redis.Z{Score: float64(time.Now().UnixMilli()), Member: string(hash) + ":12345678"}).Err())
			require.NoError(t, e.raw.Do(ctx, "client", "kill", "type", "pubsub").Err())
			redistest.Eventually(t, within, "the fresh value", func() bool {
				v, _, err := m.Get(ctx, "k1")
				return err == nil && v == "v2"
			})
			redistest.Eventually(t, within, "resubscribed", func() bool {
				return redistest.NumSub(t, e.raw, "{killed}:topic") == 1
			})
			for range 3 {
				v, _, err := m.Get(ctx, "k1")
				require.NoError(t, err)
				require.Equal(t, "v2", v)
			}
		})
	}
}

// ReconnectLoad: each write also logs the key's hash in
// redisson__cache_updates_log:{NAME}, scored by the writer's clock; after
// a gap only the logged keys leave the near cache.
func TestReconnectLoadLog(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	m := newMap(t, e.c1, "loadlog", localcache.Options{Reconnection: localcache.ReconnectLoad})
	before := time.Now().UnixMilli()
	_, _, err := m.Put(ctx, "k1", "v1")
	require.NoError(t, err)
	log, err := e.raw.ZRangeWithScores(ctx, "redisson__cache_updates_log:{loadlog}", 0, -1).Result()
	require.NoError(t, err)
	require.Len(t, log, 1)
	member := log[0].Member.(string)
	require.Len(t, member, 25)
	require.Equal(t, k1Hash, hex.EncodeToString([]byte(member[:16])))
	require.Equal(t, byte(':'), member[16])
	require.GreaterOrEqual(t, int64(log[0].Score), before)
	require.LessOrEqual(t, int64(log[0].Score), time.Now().UnixMilli())

	// Another instance caches k1 and k2; k1 is written while it misses
	// the message (the log alone says so), and its subscription breaks.
	b := newMap(t, e.c2, "loadlog", localcache.Options{Reconnection: localcache.ReconnectLoad})
	require.NoError(t, e.raw.HSet(ctx, "loadlog", "k2", "x").Err())
	for _, k := range []string{"k1", "k2"} {
		_, _, err := b.Get(ctx, k)
		require.NoError(t, err)
	}
	require.NoError(t, e.raw.HSet(ctx, "loadlog", "k1", "v9").Err())
	require.NoError(t, e.raw.Do(ctx, "client", "kill", "type", "pubsub").Err())
	redistest.Eventually(t, within, "k1 reloaded", func() bool {
		v, _, err := b.Get(ctx, "k1")
		return err == nil && v == "v9"
	})
	redistest.Eventually(t, within, "k2 kept", func() bool { v, _ := cachedValue(b, "k2"); return v == "x" })

	existed, err := m.Delete(ctx)
	require.NoError(t, err)
	require.True(t, existed)
	n, err := e.raw.Exists(ctx, "loadlog", "redisson__cache_updates_log:{loadlog}").Result()
	require.NoError(t, err)
	require.Zero(t, n, "delete removes the map and its log")
}

// StoreLocalCache: Redis holds nothing; the instances share their writes
// through the messages alone.
func TestLocalCacheStoreMode(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	o := localcache.Options{StoreMode: localcache.StoreLocalCache, Sync: localcache.SyncUpdate}
	a := newMap(t, e.c1, "lconly", o)
	b := newMap(t, e.c2, "lconly", o)
	require.NoError(t, a.Start(ctx))
	require.NoError(t, b.Start(ctx))
	_, had, err := a.Put(ctx, "k1", "v1")
	require.NoError(t, err)
	require.False(t, had)
	redistest.Eventually(t, within, "b has k1", func() bool { v, _ := cachedValue(b, "k1"); return v == "v1" })
	isNew, err := b.FastPut(ctx, "k2", "v2")
	require.NoError(t, err)
	require.True(t, isNew)
	redistest.Eventually(t, within, "a has k2", func() bool { v, _ := cachedValue(a, "k2"); return v == "v2" })
	n, err := a.Size(ctx)
	require.NoError(t, err)
	require.Equal(t, int64(2), n)
	_, ok, err := b.Get(ctx, "nope")
	require.NoError(t, err)
	require.False(t, ok)
	old, had, err := a.Remove(ctx, "k1")
	require.NoError(t, err)
	require.True(t, had)
	require.Equal(t, "v1", old)
	redistest.Eventually(t, within, "b dropped k1", func() bool { _, ok := cachedValue(b, "k1"); return !ok })
	keys, err := e.raw.Keys(ctx, "*lconly*").Result()
	require.NoError(t, err)
	require.Empty(t, keys, "nothing of the map in Redis")
}

// The operations against Redis, read back over a raw connection.
func TestOperations(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	m := newMap(t, e.c1, "ops", localcache.Options{})
	isNew, err := m.FastPut(ctx, "a", "1")
	require.NoError(t, err)
	require.True(t, isNew)
	old, had, err := m.PutIfAbsent(ctx, "a", "x")
	require.NoError(t, err)
	require.True(t, had)
	require.Equal(t, "1", old)
	_, had, err = m.PutIfAbsent(ctx, "b", "2")
	require.NoError(t, err)
	require.False(t, had)
	require.NoError(t, m.PutAll(ctx, map[string]string{"c": "3", "d": "4"}))
	require.Equal(t, map[string]string{"a": "1", "b": "2", "c": "3", "d": "4"}, e.raw.HGetAll(ctx, "ops").Val())
	m.ClearLocalCache(ctx)
	got, err := m.GetAll(ctx, "a", "b", "zz")
	require.NoError(t, err)
	require.Equal(t, map[string]string{"a": "1", "b": "2"}, got)
	ok, err := m.ContainsKey(ctx, "c")
	require.NoError(t, err)
	require.True(t, ok)
	n, err := m.Size(ctx)
	require.NoError(t, err)
	require.Equal(t, int64(4), n)
	removed, err := m.FastRemove(ctx, "c", "d", "zz")
	require.NoError(t, err)
	require.Equal(t, int64(2), removed)
	old, had, err = m.Remove(ctx, "a")
	require.NoError(t, err)
	require.True(t, had)
	require.Equal(t, "1", old)
	var keys []string
	for k, err := range m.Keys(ctx) {
		require.NoError(t, err)
		keys = append(keys, k)
	}
	require.Equal(t, []string{"b"}, keys)
	for en, err := range m.Entries(ctx) {
		require.NoError(t, err)
		require.Equal(t, localcache.Entry[string, string]{Key: "b", Value: "2"}, en)
	}
	require.NoError(t, m.Clear(ctx))
	require.Zero(t, e.raw.Exists(ctx, "ops").Val())
	require.Zero(t, m.CachedSize())
}

// Bad input, a closed map or client, a done context, a key of another
// type: clear errors, nothing sent.
func TestFailures(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	for _, tc := range []struct {
		name string
		m    *localcache.LocalCachedMap[string, string]
		is   error
	}{
		{"empty name", redisson.NewLocalCachedMap[string, string](e.c1, "", codec.String(), localcache.Options{}), redisson.ErrInvalidName},
		{"split name", redisson.NewLocalCachedMap[string, string](e.c1, "x}y", codec.String(), localcache.Options{}), redisson.ErrInvalidName},
		{"nil codec", redisson.NewLocalCachedMap[string, string](e.c1, "x", nil, localcache.Options{}), redisson.ErrInvalidArgument},
		{"bad size", redisson.NewLocalCachedMap[string, string](e.c1, "x", codec.String(), localcache.Options{CacheSize: -2}), redisson.ErrInvalidArgument},
		{"bad ttl", redisson.NewLocalCachedMap[string, string](e.c1, "x", codec.String(), localcache.Options{TTL: -time.Second}), redisson.ErrInvalidArgument},
		{"bad strategy", redisson.NewLocalCachedMap[string, string](e.c1, "x", codec.String(), localcache.Options{Sync: 9}), redisson.ErrInvalidArgument},
		{"no client", localcache.New[string, string](nil, "x", codec.String(), localcache.Options{}), redisson.ErrInvalidArgument},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := tc.m.Get(ctx, "k")
			require.ErrorIs(t, err, tc.is)
			require.Contains(t, err.Error(), `local cached map "`)
		})
	}

	m := newMap(t, e.c1, "fail", localcache.Options{})
	var nilCtx context.Context
	_, _, err := m.Get(nilCtx, "k")
	require.ErrorIs(t, err, redisson.ErrInvalidArgument)
	done, cancel := context.WithCancel(ctx)
	cancel()
	_, _, err = m.Put(done, "k", "v")
	require.ErrorIs(t, err, context.Canceled)

	ptr := redisson.NewLocalCachedMap[string, *string](e.c1, "fail", codec.String(), localcache.Options{})
	defer ptr.Close()
	_, _, err = ptr.Put(ctx, "k", nil)
	require.ErrorIs(t, err, redisson.ErrInvalidArgument)
	anyKey := redisson.NewLocalCachedMap[any, string](e.c1, "fail", codec.String(), localcache.Options{})
	defer anyKey.Close()
	_, _, err = anyKey.Get(ctx, nil)
	require.ErrorIs(t, err, redisson.ErrInvalidArgument)
	_, _, err = anyKey.Get(ctx, []string{"unhashable"})
	require.ErrorIs(t, err, redisson.ErrInvalidArgument)

	require.NoError(t, e.raw.Set(ctx, "str", "x", 0).Err())
	s := newMap(t, e.c1, "str", localcache.Options{})
	_, _, err = s.Get(ctx, "k")
	require.ErrorIs(t, err, redisson.ErrWrongType)
	_, _, err = s.Put(ctx, "k", "v")
	require.ErrorIs(t, err, redisson.ErrWrongType)
	require.Zero(t, s.CachedSize(), "a failed write leaves nothing cached")

	require.NoError(t, m.Close())
	_, _, err = m.Get(ctx, "k")
	require.ErrorIs(t, err, redisson.ErrClosed)

	c := e.client(t, "closing")
	cm := newMap(t, c, "fail", localcache.Options{})
	_, err = cm.FastPut(ctx, "k", "v")
	require.NoError(t, err)
	require.NoError(t, c.Close())
	_, _, err = cm.Get(ctx, "k")
	require.ErrorIs(t, err, redisson.ErrClosed)
	require.True(t, errors.Is(err, redisson.ErrClosed))
}

// The observer hears of every change another instance caused.
func TestObserverHearsInvalidations(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	events := make(chan observe.LocalCache, 16)
	rdb := redistest.Client(t, e.srv)
	c, err := redisson.New(rdb, redisson.WithObserver(&observe.Observer{LocalCache: func(ev observe.LocalCache) { events <- ev }}))
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	m := newMap(t, c, "observed", localcache.Options{})
	writer := newMap(t, e.c1, "observed", localcache.Options{})
	require.NoError(t, e.raw.HSet(ctx, "observed", "k1", "v1").Err())
	_, _, err = m.Get(ctx, "k1")
	require.NoError(t, err)
	_, _, err = writer.Put(ctx, "k1", "v2")
	require.NoError(t, err)
	select {
	case ev := <-events:
		require.Equal(t, observe.LocalCache{Name: "observed", Cause: observe.LocalCacheInvalidate, Entries: 1}, ev)
	case <-time.After(within):
		t.Fatal("no event")
	}
	require.Equal(t, uint64(1), m.Stats().Invalidations)
}
