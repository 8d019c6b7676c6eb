// Package mapcache holds Redisson's RMapCache, wire-identical with Java: a
// map whose entries may each have a time to live and a max idle time, an
// optional size limit with LRU or LFU eviction, and entry events. A Java
// service calling redisson.getMapCache(name, codec) and a Go service using
// the same name and an equivalent codec (see package codec) share its keys:
//
//   - the hash name: field = the encoded key, value = the max idle time in
//     ms as a little-endian double, the value's length as a little-endian
//     uint64, then the encoded value (Lua struct.pack('dLc0', …));
//   - redisson__timeout__set:{name}: a sorted set of the keys with a TTL,
//     scored by their expiry (ms since the epoch);
//   - redisson__idle__set:{name}: the keys with a max idle time, scored by
//     last access + max idle;
//   - redisson__map_cache__last_access__set:{name}: with a size limit, the
//     keys by last access (LRU) or by use count (LFU);
//   - {name}:redisson_options: a hash of max-size, mode and has-listeners;
//   - the channels redisson_map_cache_{created,updated,removed,expired}:{name}.
//
// Every operation runs Redisson's own script for it (the lua directory
// names the method each is), so expiry is honoured on read exactly as Java
// honours it: an expired entry is never returned, whether or not it has
// been removed yet. The clean-up that removes expired entries runs in every
// client holding a MapCache of the name, paced as Redisson paces it
// (Options.CleanUp of package redisson) and shared with Java clients
// through Redis' run-once latch, so a Go-only deployment does not grow
// without end and a mixed one does each run once.
//
// Redisson 4.7.0 added entry leases; its put, fastPut (with a TTL) and
// putIfAbsent (with a TTL) scripts delete or read
// redisson__map__lease:{name}:<key>. This package sends 4.7.0's scripts,
// which do with the data what 3.52.0's do: a 3.52 client never creates a
// lease key, so the extra DEL or GET finds nothing. Its fastPutIfExists
// publishes the old value with the update as 4.7.0 does (3.52.0 leaves it
// out, and its own listeners then lose the event).
//
// Make one with New[K, V](client.Source(), name, codec), or
// redisson.NewMapCache[K, V](client, name, codec). Handles are safe for
// concurrent use. Errors are shaped `map cache "<name>": <op>: <cause>`, as
// those of package collection (ErrInvalidName, ErrInvalidArgument,
// ErrWrongType, ErrClosed, codec errors).
package mapcache

import (
	"context"
	"fmt"
	"time"

	"github.com/goredisson/redisson/codec"
	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/internal/objbase"
	"github.com/goredisson/redisson/keys"
	"github.com/goredisson/redisson/source"
)

const kind = "map cache"

// MapCache is Redisson's RMapCache<K, V>. Java's null is refused as a key
// or a value (a nil pointer, interface, map or slice), as Redisson refuses
// it; a missing or expired key reads as (zero V, false).
type MapCache[K comparable, V any] struct {
	src          *source.Source
	base         objbase.Base
	keys, values codec.Codec
	k            names
}

// names are the keys and channels Redisson derives from the name.
type names struct {
	timeout, idle, lastAccess, options, lease, latch string
	created, updated, removed, expired               string
}

func namesOf(name string) names {
	return names{
		timeout:    keys.PrefixName("redisson__timeout__set", name),
		idle:       keys.PrefixName("redisson__idle__set", name),
		lastAccess: keys.PrefixName("redisson__map_cache__last_access__set", name),
		options:    keys.SuffixName(name, "redisson_options"),
		lease:      keys.PrefixName("redisson__map__lease", name) + ":",
		latch:      keys.PrefixName("redisson__execute_task_once_latch", name),
		created:    keys.PrefixName("redisson_map_cache_created", name),
		updated:    keys.PrefixName("redisson_map_cache_updated", name),
		removed:    keys.PrefixName("redisson_map_cache_removed", name),
		expired:    keys.PrefixName("redisson_map_cache_expired", name),
	}
}

// Option configures a MapCache at construction.
type Option func(*options)

type options struct {
	keys codec.Codec
}

// WithKeyCodec encodes the keys with c instead of the map's codec, as a
// Java map cache with new CompositeCodec(keyCodec, valueCodec) does.
func WithKeyCodec(c codec.Codec) Option { return func(o *options) { o.keys = c } }

// New returns the map cache called name, its keys and values encoded with
// cd (Redisson's getMapCache(name, codec)), and starts the clean-up of its
// expired entries in the client unless one runs already for the name. An
// empty name, a name whose derived keys and channels hash to another
// cluster slot, a nil source or a nil codec gives a handle whose every
// call fails (ErrInvalidName, ErrInvalidArgument).
func New[K comparable, V any](src *source.Source, name string, cd codec.Codec, opts ...Option) *MapCache[K, V] {
	o := options{keys: cd}
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	m := &MapCache[K, V]{src: src, keys: o.keys, values: cd, k: namesOf(name),
		base: objbase.New(objbase.Kind{Name: kind, Type: "hash",
			NoClient: "no client (make map caches with redisson.NewMapCache)"}, src, name)}
	m.base.Derives(m.k.timeout, m.k.idle, m.k.lastAccess, m.k.options, m.k.lease, m.k.latch,
		m.k.created, m.k.updated, m.k.removed, m.k.expired)
	m.base.NeedCodec(cd, "codec")
	// Without WithKeyCodec the keys' codec is cd, refused above when nil.
	m.base.NeedCodec(o.keys, "key codec")
	if m.base.Err() == nil && m.base.Runtime().Lifetime().Err() == nil {
		m.base.Runtime().Eviction().Schedule(name, m.evictTask())
	}
	return m
}

// Name returns the map cache's name, which is also the key of its hash.
func (m *MapCache[K, V]) Name() string {
	if m == nil {
		return ""
	}
	return m.base.Name()
}

// eval runs s on the map's keys; a write is sent at most once, as every
// write of this library is (a lost reply is an error, never a second run).
func (m *MapCache[K, V]) eval(ctx context.Context, s *core.Script, write bool, keys []string, args ...any) (any, error) {
	return m.base.Eval(ctx, s, write, keys, args...)
}

// encode returns v's bytes with cd, refusing null.
func (m *MapCache[K, V]) encode(op, what string, cd codec.Codec, v any) ([]byte, error) {
	return m.base.Encode(op, what, cd, v)
}

func (m *MapCache[K, V]) encodeKey(op string, key K) ([]byte, error) {
	return m.encode(op, "key", m.keys, key)
}

func (m *MapCache[K, V]) encodeKeys(op string, ks []K) ([]any, error) {
	out := make([]any, 0, len(ks))
	for _, k := range ks {
		data, err := m.encodeKey(op, k)
		if err != nil {
			return nil, err
		}
		out = append(out, data)
	}
	return out, nil
}

// value decodes a script's reply that holds a value, or none.
func (m *MapCache[K, V]) value(ctx context.Context, op string, reply any) (V, bool, error) {
	var v V
	data, ok := reply.(string)
	if !ok {
		return v, false, nil
	}
	if err := m.values.Decode([]byte(data), &v); err != nil {
		return v, false, m.base.Fail(ctx, op, err)
	}
	return v, true, nil
}

func (m *MapCache[K, V]) decodeKey(data string) (K, error) {
	var k K
	if err := m.keys.Decode([]byte(data), &k); err != nil {
		return k, fmt.Errorf("key %.40q: %w", data, err)
	}
	return k, nil
}

// now is the client's clock in ms, which Redisson's scripts take as
// ARGV: expiry is judged by the writer's and the reader's clocks, as in
// Java.
func now() int64 { return time.Now().UnixMilli() }
