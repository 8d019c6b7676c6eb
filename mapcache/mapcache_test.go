package mapcache_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/codec"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/mapcache"
)

// noCleanUp keeps the clean-up from running during a test, so that what
// a read sees of an expired entry is the scripts' doing alone.
var noCleanUp = redisson.WithCleanUp(redisson.CleanUpOptions{MinDelay: time.Hour, MaxDelay: time.Hour})

func newClient(t *testing.T, srv *redistest.Server, opts ...redisson.Option) (*redisson.Client, *redis.Client) {
	t.Helper()
	rdb := redistest.Client(t, srv)
	c, err := redisson.New(rdb, opts...)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return c, rdb
}

func strCache(c *redisson.Client, name string) *mapcache.MapCache[string, string] {
	return redisson.NewMapCache[string, string](c, name, codec.String())
}

// An expired entry is never returned by any read, though it stays stored
// until the clean-up removes it (Size counts it, as Redisson's does).
func TestExpiredEntryInvisibleBeforeCleanUp(t *testing.T) {
	srv := redistest.StartServer(t)
	c, rdb := newClient(t, srv, noCleanUp)
	ctx := t.Context()
	m := strCache(c, "exp")
	_, _, err := m.Put(ctx, "ttl", "1", mapcache.WithTTL(30*time.Millisecond))
	require.NoError(t, err)
	_, _, err = m.Put(ctx, "idle", "2", mapcache.WithMaxIdle(30*time.Millisecond))
	require.NoError(t, err)
	_, _, err = m.Put(ctx, "live", "3")
	require.NoError(t, err)

	// EntryRemainTTL reads without restarting the max idle time, as a Get
	// would.
	redistest.Eventually(t, 5*time.Second, "both entries expired", func() bool {
		d1, err1 := m.EntryRemainTTL(ctx, "ttl")
		d2, err2 := m.EntryRemainTTL(ctx, "idle")
		return err1 == nil && err2 == nil && d1 == -2 && d2 == -2
	})
	for _, k := range []string{"ttl", "idle"} {
		_, ok, err := m.Get(ctx, k)
		require.NoError(t, err)
		assert.False(t, ok, k)
		ok, err = m.ContainsKey(ctx, k)
		require.NoError(t, err)
		assert.False(t, ok, k)
	}
	all, err := m.ReadAll(ctx)
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"live": "3"}, all)
	got, err := m.GetAll(ctx, "ttl", "idle", "live", "none")
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"live": "3"}, got)
	var keys []string
	for k, err := range m.Keys(ctx) {
		require.NoError(t, err)
		keys = append(keys, k)
	}
	assert.Equal(t, []string{"live"}, keys)
	for e, err := range m.Entries(ctx, mapcache.WithMatch("t*")) {
		require.NoError(t, err)
		t.Errorf("the only key matching t* has expired, got %v", e)
	}
	for v, err := range m.Values(ctx, mapcache.WithPageSize(1)) {
		require.NoError(t, err)
		assert.Equal(t, "3", v)
	}
	n, err := m.Size(ctx)
	require.NoError(t, err)
	assert.Equal(t, int64(3), n, "Size is HLEN: the expired entries are still stored")
	assert.Equal(t, int64(3), rdb.HLen(ctx, "exp").Val())

	// A write over an expired entry counts it as absent.
	old, ok, err := m.Put(ctx, "ttl", "new")
	require.NoError(t, err)
	assert.False(t, ok, "the expired value is not returned: %q", old)
	added, err := m.FastPutIfAbsent(ctx, "idle", "again")
	require.NoError(t, err)
	assert.True(t, added)
}

// Get restarts an entry's max idle time, as Redisson's does.
func TestGetRestartsMaxIdle(t *testing.T) {
	srv := redistest.StartServer(t)
	c, rdb := newClient(t, srv, noCleanUp)
	ctx := t.Context()
	m := strCache(c, "idle")
	_, _, err := m.Put(ctx, "k", "v", mapcache.WithMaxIdle(time.Hour))
	require.NoError(t, err)
	before := rdb.ZScore(ctx, "redisson__idle__set:{idle}", "k").Val()
	redistest.Eventually(t, 5*time.Second, "the clock moved", func() bool {
		return float64(time.Now().UnixMilli())+float64(time.Hour.Milliseconds()) > before
	})
	v, ok, err := m.Get(ctx, "k")
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, "v", v)
	assert.Greater(t, rdb.ZScore(ctx, "redisson__idle__set:{idle}", "k").Val(), before)
	d, err := m.EntryRemainTTL(ctx, "k")
	require.NoError(t, err)
	assert.Greater(t, d, 59*time.Minute)
	assert.LessOrEqual(t, d, time.Hour)

	// So does iterating, as Java's iterator does after each page.
	after := rdb.ZScore(ctx, "redisson__idle__set:{idle}", "k").Val()
	redistest.Eventually(t, 5*time.Second, "the clock moved", func() bool {
		return float64(time.Now().UnixMilli())+float64(time.Hour.Milliseconds()) > after
	})
	for e, err := range m.Entries(ctx) {
		require.NoError(t, err)
		assert.Equal(t, "v", e.Value)
	}
	assert.Greater(t, rdb.ZScore(ctx, "redisson__idle__set:{idle}", "k").Val(), after)
}

// WithKeyCodec stores keys with their own codec, as a Java CompositeCodec.
func TestKeyCodec(t *testing.T) {
	srv := redistest.StartServer(t)
	c, rdb := newClient(t, srv, noCleanUp)
	ctx := t.Context()
	m := redisson.NewMapCache[string, int64](c, "kc", codec.JsonJackson(nil), mapcache.WithKeyCodec(codec.String()))
	_, _, err := m.Put(ctx, "a", 7)
	require.NoError(t, err)
	raw := rdb.HGet(ctx, "kc", "a").Val()
	assert.Equal(t, `["java.lang.Long",7]`, raw[16:])
	all, err := m.ReadAll(ctx)
	require.NoError(t, err)
	assert.Equal(t, map[string]int64{"a": 7}, all)
}

func TestWrites(t *testing.T) {
	srv := redistest.StartServer(t)
	c, rdb := newClient(t, srv, noCleanUp)
	ctx := t.Context()
	m := strCache(c, "w")
	added, err := m.FastPut(ctx, "a", "1", mapcache.WithTTL(time.Minute))
	require.NoError(t, err)
	assert.True(t, added)
	added, err = m.FastPut(ctx, "a", "2")
	require.NoError(t, err)
	assert.False(t, added)
	require.NoError(t, rdb.ZScore(ctx, "redisson__timeout__set:{w}", "a").Err(), "FastPut without a TTL keeps a live entry's, as Redisson's does")
	_, _, err = m.Put(ctx, "a", "2")
	require.NoError(t, err)
	require.ErrorIs(t, rdb.ZScore(ctx, "redisson__timeout__set:{w}", "a").Err(), redis.Nil, "Put without a TTL drops it")

	v, ok, err := m.PutIfAbsent(ctx, "a", "x", mapcache.WithTTL(time.Minute))
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Equal(t, "2", v)
	_, ok, err = m.PutIfAbsent(ctx, "b", "1")
	require.NoError(t, err)
	assert.False(t, ok)
	added, err = m.FastPutIfAbsent(ctx, "b", "x", mapcache.WithMaxIdle(time.Minute))
	require.NoError(t, err)
	assert.False(t, added)

	done, err := m.FastPutIfExists(ctx, "none", "x")
	require.NoError(t, err)
	assert.False(t, done)
	done, err = m.FastPutIfExists(ctx, "b", "2")
	require.NoError(t, err)
	assert.True(t, done)

	old, ok, err := m.Replace(ctx, "b", "3")
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Equal(t, "2", old)
	_, ok, err = m.Replace(ctx, "none", "3")
	require.NoError(t, err)
	assert.False(t, ok)

	old, ok, err = m.Remove(ctx, "b")
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Equal(t, "3", old)
	n, err := m.FastRemove(ctx, "a", "b", "none")
	require.NoError(t, err)
	assert.Equal(t, int64(1), n)
	n, err = m.FastRemove(ctx)
	require.NoError(t, err)
	assert.Zero(t, n)
	assert.Zero(t, rdb.Exists(ctx, "w").Val())
}

func TestMaxSize(t *testing.T) {
	for _, tt := range []struct {
		mode    mapcache.EvictionMode
		evicted string
	}{{mapcache.LRU, "b"}, {mapcache.LFU, "b"}} {
		t.Run(tt.mode.String(), func(t *testing.T) {
			srv := redistest.StartServer(t)
			c, rdb := newClient(t, srv, noCleanUp)
			ctx := t.Context()
			m := strCache(c, "ms")
			require.NoError(t, m.SetMaxSize(ctx, 2, tt.mode))
			assert.Equal(t, map[string]string{"max-size": "2", "mode": tt.mode.String()}, rdb.HGetAll(ctx, "{ms}:redisson_options").Val())
			set, err := m.TrySetMaxSize(ctx, 5, tt.mode)
			require.NoError(t, err)
			assert.False(t, set, "already set")
			for _, k := range []string{"a", "b"} {
				_, _, err := m.Put(ctx, k, k)
				require.NoError(t, err)
			}
			// The read makes a the more recent and the more used.
			redistest.Eventually(t, 5*time.Second, "the clock moved", func() bool {
				return float64(time.Now().UnixMilli()) > rdb.ZScore(ctx, "redisson__map_cache__last_access__set:{ms}", "b").Val()
			})
			_, _, err = m.Get(ctx, "a")
			require.NoError(t, err)
			_, _, err = m.Put(ctx, "c", "c")
			require.NoError(t, err)
			all, err := m.ReadAll(ctx)
			require.NoError(t, err)
			assert.NotContains(t, all, tt.evicted)
			assert.Len(t, all, 2)
		})
	}
}

func TestWholeMapExpiry(t *testing.T) {
	srv := redistest.StartServer(t)
	c, rdb := newClient(t, srv, noCleanUp)
	ctx := t.Context()
	m := strCache(c, "whole")
	d, err := m.RemainTTL(ctx)
	require.NoError(t, err)
	assert.Equal(t, time.Duration(-2), d)
	ok, err := m.Expire(ctx, time.Minute)
	require.NoError(t, err)
	assert.False(t, ok, "no map yet")
	_, _, err = m.Put(ctx, "a", "1", mapcache.WithTTL(time.Hour), mapcache.WithMaxIdle(time.Hour))
	require.NoError(t, err)
	ok, err = m.Expire(ctx, time.Minute)
	require.NoError(t, err)
	assert.True(t, ok)
	for _, k := range []string{"whole", "redisson__timeout__set:{whole}", "redisson__idle__set:{whole}"} {
		assert.Greater(t, rdb.PTTL(ctx, k).Val(), 50*time.Second, k)
	}
	d, err = m.RemainTTL(ctx)
	require.NoError(t, err)
	assert.Greater(t, d, 50*time.Second)
	ok, err = m.ClearExpire(ctx)
	require.NoError(t, err)
	assert.True(t, ok)
	for _, k := range []string{"whole", "redisson__timeout__set:{whole}", "redisson__idle__set:{whole}"} {
		assert.Equal(t, time.Duration(-1), rdb.PTTL(ctx, k).Val(), k)
	}
	deleted, err := m.Delete(ctx)
	require.NoError(t, err)
	assert.True(t, deleted)
	assert.Empty(t, redistest.Keys(t, rdb, "*"))
}

// The events of Go writes reach a Go listener, decoded, in order.
func TestListeners(t *testing.T) {
	srv := redistest.StartServer(t)
	c, rdb := newClient(t, srv, redisson.WithCleanUp(redisson.CleanUpOptions{MinDelay: time.Second}))
	ctx := t.Context()
	listening := strCache(c, "ev")
	writer, _ := newClient(t, srv, noCleanUp)
	m := strCache(writer, "ev") // another client's writes
	var ls []*mapcache.Listener[string, string]
	for _, typ := range []mapcache.EventType{mapcache.EntryCreated, mapcache.EntryUpdated, mapcache.EntryRemoved, mapcache.EntryExpired} {
		l, err := listening.AddListener(ctx, typ)
		require.NoError(t, err)
		t.Cleanup(func() { _ = l.Close() })
		ls = append(ls, l)
	}
	assert.Equal(t, "1", rdb.HGet(ctx, "{ev}:redisson_options", "has-listeners").Val())
	next := func(l *mapcache.Listener[string, string]) mapcache.Event[string, string] {
		t.Helper()
		select {
		case e := <-l.Events():
			require.NoError(t, e.Err)
			return e
		case <-time.After(10 * time.Second):
			t.Fatal("no event")
		}
		return mapcache.Event[string, string]{}
	}
	_, _, err := m.Put(ctx, "a", "1")
	require.NoError(t, err)
	assert.Equal(t, mapcache.Event[string, string]{Type: mapcache.EntryCreated, Key: "a", Value: "1"}, next(ls[0]))
	_, _, err = m.Put(ctx, "a", "2")
	require.NoError(t, err)
	assert.Equal(t, mapcache.Event[string, string]{Type: mapcache.EntryUpdated, Key: "a", Value: "2", OldValue: "1"}, next(ls[1]))
	_, _, err = m.Remove(ctx, "a")
	require.NoError(t, err)
	assert.Equal(t, mapcache.Event[string, string]{Type: mapcache.EntryRemoved, Key: "a", OldValue: "2"}, next(ls[2]))
	_, err = m.FastPut(ctx, "b", "x", mapcache.WithTTL(time.Millisecond))
	require.NoError(t, err)
	assert.Equal(t, mapcache.Event[string, string]{Type: mapcache.EntryCreated, Key: "b", Value: "x"}, next(ls[0]))
	assert.Equal(t, mapcache.Event[string, string]{Type: mapcache.EntryExpired, Key: "b", Value: "x"}, next(ls[3]))

	require.NoError(t, ls[0].Close())
	_, open := <-ls[0].Events()
	assert.False(t, open, "Close closes Events")
	redistest.Eventually(t, 5*time.Second, "the created channel unsubscribed", func() bool {
		return redistest.NumSub(t, rdb, "redisson_map_cache_created:{ev}") == 0
	})
}

// A Go-only deployment's expired entries are removed by the clients'
// clean-up, keys and sorted sets alike.
func TestCleanUpRemovesExpired(t *testing.T) {
	srv := redistest.StartServer(t)
	c, rdb := newClient(t, srv, redisson.WithCleanUp(redisson.CleanUpOptions{MinDelay: time.Second}))
	ctx := t.Context()
	m := strCache(c, "gc")
	for _, k := range []string{"a", "b", "c"} {
		_, err := m.FastPut(ctx, k, k, mapcache.WithTTL(time.Millisecond))
		require.NoError(t, err)
	}
	_, err := m.FastPut(ctx, "idle", "i", mapcache.WithMaxIdle(time.Millisecond))
	require.NoError(t, err)
	_, err = m.FastPut(ctx, "live", "l")
	require.NoError(t, err)
	redistest.Eventually(t, 10*time.Second, "the expired entries removed", func() bool {
		return rdb.HLen(ctx, "gc").Val() == 1
	})
	assert.Zero(t, rdb.Exists(ctx, "redisson__timeout__set:{gc}", "redisson__idle__set:{gc}").Val())
	assert.Equal(t, "l", rdb.HGet(ctx, "gc", "live").Val()[16:])
}

func TestBadInput(t *testing.T) {
	srv := redistest.StartServer(t)
	c, _ := newClient(t, srv, noCleanUp)
	ctx := t.Context()
	m := strCache(c, "bad")
	ptr := redisson.NewMapCache[string, *string](c, "bad", codec.JsonJackson(nil))
	tests := []struct {
		name string
		call func() error
		want error
	}{
		{"empty name", func() error { _, _, err := strCache(c, "").Get(ctx, "a"); return err }, redisson.ErrInvalidName},
		{"nil codec", func() error {
			_, _, err := redisson.NewMapCache[string, string](c, "x", nil).Get(ctx, "a")
			return err
		}, redisson.ErrInvalidArgument},
		{"nil key codec", func() error {
			_, _, err := redisson.NewMapCache[string, string](c, "x", codec.String(), mapcache.WithKeyCodec(nil)).Get(ctx, "a")
			return err
		}, redisson.ErrInvalidArgument},
		{"nil value", func() error { _, _, err := ptr.Put(ctx, "a", nil); return err }, redisson.ErrInvalidArgument},
		{"negative TTL", func() error { _, err := m.FastPut(ctx, "a", "1", mapcache.WithTTL(-time.Second)); return err }, redisson.ErrInvalidArgument},
		{"sub-millisecond max idle", func() error {
			_, _, err := m.PutIfAbsent(ctx, "a", "1", mapcache.WithMaxIdle(time.Microsecond))
			return err
		}, redisson.ErrInvalidArgument},
		{"negative max size", func() error { return m.SetMaxSize(ctx, -1, mapcache.LRU) }, redisson.ErrInvalidArgument},
		{"unknown mode", func() error { _, err := m.TrySetMaxSize(ctx, 1, mapcache.EvictionMode(7)); return err }, redisson.ErrInvalidArgument},
		{"unknown event type", func() error { _, err := m.AddListener(ctx, 0); return err }, redisson.ErrInvalidArgument},
		{"zero page", func() error {
			for _, err := range m.Entries(ctx, mapcache.WithPageSize(0)) {
				return err
			}
			return nil
		}, redisson.ErrInvalidArgument},
		{"sub-millisecond expire", func() error { _, err := m.Expire(ctx, time.Microsecond); return err }, redisson.ErrInvalidArgument},
		{"nil handle", func() error { var n *mapcache.MapCache[string, string]; _, err := n.Size(ctx); return err }, redisson.ErrInvalidArgument},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call()
			require.ErrorIs(t, err, tt.want)
			var oe *redisson.ObjectError
			require.ErrorAs(t, err, &oe)
		})
	}
}

func TestWrongType(t *testing.T) {
	srv := redistest.StartServer(t)
	c, rdb := newClient(t, srv, noCleanUp)
	ctx := t.Context()
	require.NoError(t, rdb.Set(ctx, "str", "x", 0).Err())
	m := strCache(c, "str")
	calls := map[string]func() error{
		"put":  func() error { _, _, err := m.Put(ctx, "a", "1"); return err },
		"get":  func() error { _, _, err := m.Get(ctx, "a"); return err },
		"size": func() error { _, err := m.Size(ctx); return err },
		"read": func() error { _, err := m.ReadAll(ctx); return err },
		"iterate": func() error {
			for _, err := range m.Entries(ctx) {
				return err
			}
			return nil
		},
	}
	for name, call := range calls {
		err := call()
		require.ErrorIs(t, err, redisson.ErrWrongType, name)
		assert.Contains(t, err.Error(), `map cache "str"`, name)
	}
	assert.Equal(t, "x", rdb.Get(ctx, "str").Val(), "nothing was written")
}

func TestClosedClientAndCancelledContext(t *testing.T) {
	srv := redistest.StartServer(t)
	c, _ := newClient(t, srv, noCleanUp)
	m := strCache(c, "cl")
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, _, err := m.Put(ctx, "a", "1")
	require.ErrorIs(t, err, context.Canceled)
	_, err = m.AddListener(ctx, mapcache.EntryCreated)
	require.ErrorIs(t, err, context.Canceled)

	require.NoError(t, c.Close())
	_, _, err = m.Get(t.Context(), "a")
	require.ErrorIs(t, err, redisson.ErrClosed)
	_, err = m.FastPut(t.Context(), "a", "1")
	require.ErrorIs(t, err, redisson.ErrClosed)
	for _, err := range m.Entries(t.Context()) {
		require.ErrorIs(t, err, redisson.ErrClosed)
	}
	require.True(t, errors.Is(redisson.ErrClosed, redisson.ErrClosed))
}

// On a cluster every script reaches the master of the name's slot (all the
// map cache's keys share it), the listeners subscribe with SSUBSCRIBE, and
// the clean-up runs there too.
func TestCluster(t *testing.T) {
	cl := redistest.StartCluster(t, 3).Client(t)
	c, err := redisson.New(cl, redisson.WithCleanUp(redisson.CleanUpOptions{MinDelay: time.Second}))
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	ctx := t.Context()
	for _, name := range []string{"mc0", "mc1", "mc2", "{tag}mc"} {
		m := strCache(c, name)
		l, err := m.AddListener(ctx, mapcache.EntryExpired)
		require.NoError(t, err)
		_, _, err = m.Put(ctx, "a", "1", mapcache.WithTTL(time.Millisecond))
		require.NoError(t, err)
		_, _, err = m.Put(ctx, "b", "2")
		require.NoError(t, err)
		v, ok, err := m.Get(ctx, "b")
		require.NoError(t, err)
		require.True(t, ok)
		require.Equal(t, "2", v)
		select {
		case e := <-l.Events():
			require.NoError(t, e.Err)
			require.Equal(t, "a", e.Key, name)
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: no expired event", name)
		}
		n := 0
		for _, err := range m.Entries(ctx) {
			require.NoError(t, err)
			n++
		}
		require.Equal(t, 1, n)
		require.NoError(t, l.Close())
		deleted, err := m.Delete(ctx)
		require.NoError(t, err)
		require.True(t, deleted)
	}
}

// Redisson's putIfAbsent without a TTL, over an expired entry, stores the
// value but leaves the old expiry in the timeout set, so the new value
// reads as expired; a Java peer's reads do the same (docs/caches.md).
func TestPutIfAbsentOverExpiredKeepsRedissonsQuirk(t *testing.T) {
	srv := redistest.StartServer(t)
	c, rdb := newClient(t, srv, noCleanUp)
	ctx := t.Context()
	m := strCache(c, "q")
	_, err := m.FastPut(ctx, "k", "old", mapcache.WithTTL(time.Millisecond))
	require.NoError(t, err)
	redistest.Eventually(t, 5*time.Second, "the entry expired", func() bool {
		ok, err := m.ContainsKey(ctx, "k")
		return err == nil && !ok
	})
	_, ok, err := m.PutIfAbsent(ctx, "k", "new")
	require.NoError(t, err)
	require.False(t, ok, "stored")
	assert.Equal(t, "new", rdb.HGet(ctx, "q", "k").Val()[16:])
	_, ok, err = m.Get(ctx, "k")
	require.NoError(t, err)
	assert.False(t, ok, "the old TTL score still applies")
	_, _, err = m.Put(ctx, "k", "new")
	require.NoError(t, err)
	v, ok, err := m.Get(ctx, "k")
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Equal(t, "new", v)
}
