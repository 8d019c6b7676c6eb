// Package localcache is Redisson's RLocalCachedMap, wire-identical with
// Java: a map in Redis (the hash NAME, fields the encoded keys, values the
// encoded values, as RMap and package collection's Map) with a near cache
// in each instance, kept coherent through Redisson's topic {NAME}:topic
// and Redisson's messages (LocalCachedMessageCodec). A Java
// RLocalCachedMap and a Go LocalCachedMap on the same name and codec see
// each other's writes: each write sends Redisson's script, which publishes
// the invalidation (or the update) every near cache, Java's and Go's,
// applies; a key is named in a message by Redisson's 128-bit HighwayHash
// of its encoded bytes.
//
// Make one with New[K, V](client.Source(), name, codec, Options{}) or
// redisson.NewLocalCachedMap. The zero Options are Redisson's defaults:
// no size cap, no TTL, sync strategy INVALIDATE, store mode
// LOCALCACHE_REDIS. The instance subscribes to the topic (through the
// client's pub/sub hub) on its first call; Close stops listening.
//
// # Coherence
//
// A read served by the near cache allocates nothing and sends nothing. A
// miss reads Redis (HGET) and caches the value unless a message about the
// key, or a local write of it, came while it was read: a value read
// before a change is never cached after the change's message. A message
// this package does not understand clears the near cache. While the
// subscription's connection is down the near cache is neither read nor
// filled (every read goes to Redis); once the subscription is made again
// the reconnection strategy runs (ReconnectLoad drops what the updates log
// says changed, the others clear), so a missed message never leaves a
// stale value. What stays is what Redisson has too: between a write in
// Redis and its message's arrival, another instance's near cache still
// serves the old value (microseconds to milliseconds on a local network).
//
// # Failures
//
// Errors read `local cached map "<name>": <operation>: <cause>` and match
// the sentinels of package redisson: ErrInvalidName, ErrInvalidArgument
// (a nil codec or key, bad Options), ErrWrongType, ErrClosed (after the
// client's Close or the map's); codec errors wrap codec.ErrEncode or
// codec.ErrDecode. Writes are sent at most once.
package localcache

import (
	"context"
	"crypto/rand"
	"fmt"
	"reflect"
	"sync"
	"sync/atomic"

	"github.com/goredisson/redisson/codec"
	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/internal/handle"
	"github.com/goredisson/redisson/internal/highway"
	"github.com/goredisson/redisson/source"
)

const kind = "local cached map"

// stripes is how many change counters guard the fill of a miss (a key's
// counter is picked by its hash): a change to one key rarely stops the
// fill of another.
const stripes = 64

// LocalCachedMap is Redisson's RLocalCachedMap<K, V>: the map NAME in
// Redis with a near cache in front, kept coherent with every other
// instance (Java or Go) by Redisson's messages on {NAME}:topic. It is safe
// for concurrent use; Close it when done.
type LocalCachedMap[K comparable, V any] struct {
	src    *source.Source // for the clear's semaphore
	rt     *core.Runtime
	name   string
	keys   codec.Codec
	values codec.Codec
	opts   Options
	err    error // the constructor's
	id     [idLen]byte
	store  *store[K, V]

	// gen counts clears, and epochs the changes to the keys of each
	// stripe: a miss caches what it read only if neither moved meanwhile.
	gen    atomic.Uint64
	epochs [stripes]atomic.Uint64
	// down is set while the near cache cannot be trusted: the
	// subscription's connection is lost, or a reload runs.
	down atomic.Bool

	hits, misses, invalidations atomic.Uint64

	life   sync.Mutex // held while starting or closing
	closed atomic.Bool
	lis    atomic.Pointer[listener[K, V]]
	// ifaceKey is set when K is an interface type: a key is checked
	// before it is looked up, since a Go map panics on an unhashable one.
	ifaceKey bool
}

// New returns the local cached map called name on src, keys and values
// encoded with cd (Options.KeyCodec for the keys, when set), configured by
// o. It sends nothing: the first call subscribes. An empty name, a nil
// source or codec, or bad options give a handle whose every call fails.
func New[K comparable, V any](src *source.Source, name string, cd codec.Codec, o Options) *LocalCachedMap[K, V] {
	m := &LocalCachedMap[K, V]{src: src, rt: (*handle.Source)(src).Runtime(), name: name, keys: cd, values: cd, opts: o}
	if o.KeyCodec != nil {
		m.keys = o.KeyCodec
	}
	switch {
	case name == "":
		m.err = fmt.Errorf("%w: the name must not be empty", core.ErrInvalidName)
	case core.CheckName(name, m.topic(), m.updatesLog()) != nil:
		// The scripts name the map, its topic and its log: one slot.
		m.err = core.CheckName(name, m.topic(), m.updatesLog())
	case m.rt == nil || m.rt.Redis() == nil || m.rt.Hub() == nil:
		m.err = fmt.Errorf("%w: no client (make it with redisson.NewLocalCachedMap)", core.ErrInvalidArgument)
	case cd == nil:
		m.err = fmt.Errorf("%w: nil codec", core.ErrInvalidArgument)
	default:
		m.err = o.check()
	}
	if _, err := rand.Read(m.id[:]); err != nil && m.err == nil {
		m.err = err
	}
	m.store = newStore[K, V](o)
	m.ifaceKey = reflect.TypeFor[K]().Kind() == reflect.Interface
	return m
}

// Name returns the map's name, which is also its hash's key.
func (m *LocalCachedMap[K, V]) Name() string {
	if m == nil {
		return ""
	}
	return m.name
}

// InstanceID returns the 16 bytes that name this instance in its
// messages (Redisson's instanceId, random per instance): a receiver skips
// a message that carries its own.
func (m *LocalCachedMap[K, V]) InstanceID() [16]byte { return m.id }

// topic is Redisson's {NAME}:topic.
func (m *LocalCachedMap[K, V]) topic() string { return core.SuffixName(m.name, "topic") }

// updatesLog is redisson__cache_updates_log:{NAME}.
func (m *LocalCachedMap[K, V]) updatesLog() string {
	return core.PrefixName("redisson__cache_updates_log", m.name)
}

// named names the map and op in err.
func (m *LocalCachedMap[K, V]) named(op string, err error) error {
	if err == nil {
		return nil
	}
	return &core.ObjectError{Kind: kind, Name: m.name, Op: op, Err: err}
}

// check returns why a call cannot be made: an invalid handle, a nil or
// done context, a closed client or map.
func (m *LocalCachedMap[K, V]) check(ctx context.Context, op string) error {
	if m.err != nil {
		return m.named(op, m.err)
	}
	if err := m.rt.Check(ctx); err != nil {
		return m.named(op, err)
	}
	if m.closed.Load() {
		return m.named(op, fmt.Errorf("%w: the local cached map was closed", core.ErrClosed))
	}
	return nil
}

// encodeKey encodes key, refusing Java's null.
func (m *LocalCachedMap[K, V]) encodeKey(op string, key K) ([]byte, error) {
	return m.encode(op, "key", m.keys, key)
}

func (m *LocalCachedMap[K, V]) encodeValue(op string, v V) ([]byte, error) {
	return m.encode(op, "value", m.values, v)
}

func (m *LocalCachedMap[K, V]) encode(op, what string, cd codec.Codec, v any) ([]byte, error) {
	if isNull(v) {
		return nil, m.named(op, fmt.Errorf("%w: the %s must not be nil (Redisson refuses null)", core.ErrInvalidArgument, what))
	}
	data, err := cd.Encode(v)
	if err != nil {
		return nil, m.named(op, err)
	}
	return data, nil
}

// keyHash is Redisson's CacheKey of an encoded key.
func keyHash(encoded []byte) hash { return highway.Sum128(encoded) }

// mark is a snapshot of the counters that guard the fill of one key.
type mark struct{ gen, epoch uint64 }

func (m *LocalCachedMap[K, V]) mark(h hash) mark {
	return mark{m.gen.Load(), m.epochs[h[0]%stripes].Load()}
}

// changed records a change of the key of h, before the near cache
// changes: a fill that read the key before it will not cache.
func (m *LocalCachedMap[K, V]) changed(h hash) { m.epochs[h[0]%stripes].Add(1) }

// fill caches v for key when nothing about the key changed since mk, the
// near cache is trusted and the key is not disabled by a transaction.
func (m *LocalCachedMap[K, V]) fill(key K, h hash, v V, mk mark) {
	s := m.store
	s.mu.Lock()
	defer s.mu.Unlock()
	if m.mark(h) != mk || m.down.Load() || m.lisDisabled(h) {
		return
	}
	s.putLocked(key, h, v)
}

// lisDisabled reports whether a transaction disabled caching h; store.mu
// held.
func (m *LocalCachedMap[K, V]) lisDisabled(h hash) bool {
	l := m.lis.Load()
	return l != nil && l.disabled(h)
}

// cached returns key's value from the near cache, counting the hit or
// the miss; nothing while the near cache is not trusted.
func (m *LocalCachedMap[K, V]) cached(key K) (V, bool) {
	if !m.down.Load() {
		if v, ok := m.store.get(key); ok {
			m.hits.Add(1)
			return v, true
		}
	}
	m.misses.Add(1)
	var zero V
	return zero, false
}

// Stats are the near cache's counters since the map was made.
type Stats struct {
	Hits          uint64 // reads the near cache answered
	Misses        uint64 // reads it did not (Redis was read, in LOCALCACHE_REDIS mode)
	Invalidations uint64 // entries dropped by other instances' messages (clears count every entry)
	Messages      uint64 // messages received from other instances
}

// Stats returns the near cache's counters; reading them costs the hit
// path nothing (atomic counters).
func (m *LocalCachedMap[K, V]) Stats() Stats {
	if m == nil {
		return Stats{}
	}
	st := Stats{Hits: m.hits.Load(), Misses: m.misses.Load(), Invalidations: m.invalidations.Load()}
	if l := m.lis.Load(); l != nil {
		st.Messages = l.messages.Load()
	}
	return st
}

// CachedSize returns how many entries the near cache holds (Redisson's
// cachedSize), expired ones not yet dropped included.
func (m *LocalCachedMap[K, V]) CachedSize() int {
	if m == nil {
		return 0
	}
	return m.store.size()
}

// CachedMap returns a copy of what the near cache holds (Redisson's
// getCachedMap); it reads nothing from Redis.
func (m *LocalCachedMap[K, V]) CachedMap() map[K]V {
	if m == nil {
		return nil
	}
	out := map[K]V{}
	for _, e := range m.store.snapshot() {
		out[e.key] = e.val
	}
	return out
}

// clearLocal drops every entry of the near cache; a fill in flight will
// not cache what it read.
func (m *LocalCachedMap[K, V]) clearLocal() int {
	m.gen.Add(1)
	return m.store.clear()
}
