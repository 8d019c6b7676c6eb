package mapcache

import (
	"context"
	"fmt"
	"time"

	"github.com/goredisson/redisson/internal/core"
)

// EntryOption sets the expiry of an entry a write stores.
type EntryOption func(*entryOptions)

type entryOptions struct{ ttl, maxIdle time.Duration }

// WithTTL makes the entry expire d after the write (Redisson's ttl). Zero
// means none. Redisson counts whole milliseconds, so d must be zero or at
// least a millisecond.
func WithTTL(d time.Duration) EntryOption { return func(o *entryOptions) { o.ttl = d } }

// WithMaxIdle makes the entry expire when it has not been read or written
// for d (Redisson's maxIdleTime): every Get restarts it. Zero means none;
// otherwise at least a millisecond.
func WithMaxIdle(d time.Duration) EntryOption { return func(o *entryOptions) { o.maxIdle = d } }

// expiry is what Redisson's scripts take for an entry's expiry: the TTL's
// and the max idle time's deadlines (0: none) and the max idle time, in ms.
type expiry struct {
	at, idleAt, idle int64
}

func (e expiry) none() bool { return e.at == 0 && e.idle == 0 }

func (m *MapCache[K, V]) expiry(op string, now int64, opts []EntryOption) (expiry, error) {
	var o entryOptions
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	for _, d := range []struct {
		what string
		d    time.Duration
	}{{"TTL", o.ttl}, {"max idle time", o.maxIdle}} {
		if d.d < 0 || (d.d > 0 && d.d < time.Millisecond) {
			return expiry{}, m.invalid(op, "the %s %v is neither zero nor a millisecond or more", d.what, d.d)
		}
	}
	var e expiry
	if o.ttl > 0 {
		e.at = now + o.ttl.Milliseconds()
	}
	if o.maxIdle > 0 {
		e.idle = o.maxIdle.Milliseconds()
		e.idleAt = now + e.idle
	}
	return e, nil
}

// write is one entry write: its key and value encoded, its expiry, the
// client's clock, all before anything is sent.
type write struct {
	k, v []byte
	e    expiry
	now  int64
}

func (m *MapCache[K, V]) prepare(ctx context.Context, op string, key K, v V, opts []EntryOption) (write, error) {
	var w write
	if err := m.check(ctx, op); err != nil {
		return w, err
	}
	var err error
	if w.k, err = m.encodeKey(op, key); err != nil {
		return w, err
	}
	if w.v, err = m.encode(op, "value", m.values, v); err != nil {
		return w, err
	}
	w.now = now()
	w.e, err = m.expiry(op, w.now, opts)
	return w, err
}

// keyList returns the name followed by names, the KEYS of a script.
func (m *MapCache[K, V]) keyList(names ...string) []string {
	return append([]string{m.name}, names...)
}

// Put stores v under key and returns the previous live value, and whether
// there was one (Redisson's put; an expired entry counts as none). Options
// give the entry a TTL and a max idle time; without them it never expires
// and a TTL it had is dropped.
func (m *MapCache[K, V]) Put(ctx context.Context, key K, v V, opts ...EntryOption) (V, bool, error) {
	if m == nil {
		return *new(V), false, core.NilHandle(kind, "put")
	}
	const op = "put"
	w, err := m.prepare(ctx, op, key, v, opts)
	if err != nil {
		return *new(V), false, err
	}
	n := m.k
	var reply any
	if w.e.none() {
		reply, err = m.eval(ctx, putScript, true,
			m.keyList(n.timeout, n.idle, n.created, n.updated, n.lastAccess, n.removed, n.options, n.lease),
			w.now, w.k, w.v, m.rt.PublishCommand())
	} else {
		reply, err = m.eval(ctx, putTTLScript, true,
			m.keyList(n.timeout, n.idle, n.created, n.updated, n.lastAccess, n.removed, n.options),
			w.now, w.e.at, w.e.idleAt, w.e.idle, w.k, w.v, m.rt.PublishCommand())
	}
	if err != nil {
		return *new(V), false, m.fail(ctx, op, err)
	}
	return m.value(ctx, op, reply)
}

// FastPut stores v under key and reports whether the key was new or
// expired (Redisson's fastPut); it does not return the previous value.
// Without options, a live entry keeps its TTL and loses its max idle time,
// as in Java (Put drops both).
func (m *MapCache[K, V]) FastPut(ctx context.Context, key K, v V, opts ...EntryOption) (bool, error) {
	if m == nil {
		return false, core.NilHandle(kind, "fast put")
	}
	const op = "fast put"
	w, err := m.prepare(ctx, op, key, v, opts)
	if err != nil {
		return false, err
	}
	n := m.k
	var reply any
	if w.e.none() {
		reply, err = m.eval(ctx, fastPutScript, true,
			m.keyList(n.timeout, n.idle, n.created, n.updated, n.lastAccess, n.removed, n.options),
			w.now, w.k, w.v, m.rt.PublishCommand())
	} else {
		// The empty lease token: a write without a lease.
		reply, err = m.eval(ctx, fastPutTTLScript, true,
			m.keyList(n.timeout, n.idle, n.created, n.updated, n.lastAccess, n.removed, n.options, n.lease),
			w.now, w.e.at, w.e.idleAt, w.e.idle, w.k, w.v, m.rt.PublishCommand(), "")
	}
	return m.flag(ctx, op, reply, err)
}

// PutIfAbsent stores v under key when the map has no live value for it.
// It returns the live value and true when there is one (nothing is
// stored), or false when v was stored (Redisson's putIfAbsent).
func (m *MapCache[K, V]) PutIfAbsent(ctx context.Context, key K, v V, opts ...EntryOption) (V, bool, error) {
	if m == nil {
		return *new(V), false, core.NilHandle(kind, "put if absent")
	}
	const op = "put if absent"
	w, err := m.prepare(ctx, op, key, v, opts)
	if err != nil {
		return *new(V), false, err
	}
	n := m.k
	var reply any
	if w.e.none() {
		reply, err = m.eval(ctx, putIfAbsentScript, true,
			m.keyList(n.timeout, n.idle, n.created, n.lastAccess, n.removed, n.options),
			w.now, w.k, w.v, m.rt.PublishCommand())
	} else {
		reply, err = m.eval(ctx, putIfAbsentTTLScript, true,
			m.keyList(n.timeout, n.idle, n.created, n.lastAccess, n.removed, n.options, n.lease),
			w.now, w.e.at, w.e.idleAt, w.e.idle, w.k, w.v, m.rt.PublishCommand())
	}
	if err != nil {
		return *new(V), false, m.fail(ctx, op, err)
	}
	return m.value(ctx, op, reply)
}

// FastPutIfAbsent stores v under key when the map has no live value for
// it and reports whether it did (Redisson's fastPutIfAbsent).
func (m *MapCache[K, V]) FastPutIfAbsent(ctx context.Context, key K, v V, opts ...EntryOption) (bool, error) {
	if m == nil {
		return false, core.NilHandle(kind, "fast put if absent")
	}
	const op = "fast put if absent"
	w, err := m.prepare(ctx, op, key, v, opts)
	if err != nil {
		return false, err
	}
	n := m.k
	keys := m.keyList(n.timeout, n.idle, n.created, n.lastAccess, n.removed, n.options)
	var reply any
	if w.e.none() {
		reply, err = m.eval(ctx, fastPutIfAbsentScript, true, keys, w.now, w.k, w.v, m.rt.PublishCommand())
	} else {
		reply, err = m.eval(ctx, fastPutIfAbsentTTLScript, true, keys,
			w.now, w.e.at, w.e.idleAt, w.e.idle, w.k, w.v, m.rt.PublishCommand())
	}
	return m.flag(ctx, op, reply, err)
}

// FastPutIfExists stores v under key when the map has a value for it and
// reports whether it did (Redisson's fastPutIfExists). As in Java, the
// entry is stored without a max idle time and keeps its TTL, and an
// expired entry not yet cleaned up counts as existing.
func (m *MapCache[K, V]) FastPutIfExists(ctx context.Context, key K, v V) (bool, error) {
	if m == nil {
		return false, core.NilHandle(kind, "fast put if exists")
	}
	const op = "fast put if exists"
	w, err := m.prepare(ctx, op, key, v, nil)
	if err != nil {
		return false, err
	}
	n := m.k
	reply, err := m.eval(ctx, fastPutIfExistsScript, true,
		m.keyList(n.timeout, n.idle, n.updated, n.lastAccess, n.removed, n.options),
		w.now, w.k, w.v, m.rt.PublishCommand())
	return m.flag(ctx, op, reply, err)
}

// Replace stores v under key when the map has a live value for it, keeping
// the entry's TTL and max idle time, and returns the value replaced and
// true, or false when there was none (Redisson's replace(key, value)).
func (m *MapCache[K, V]) Replace(ctx context.Context, key K, v V) (V, bool, error) {
	if m == nil {
		return *new(V), false, core.NilHandle(kind, "replace")
	}
	const op = "replace"
	w, err := m.prepare(ctx, op, key, v, nil)
	if err != nil {
		return *new(V), false, err
	}
	n := m.k
	reply, err := m.eval(ctx, replaceScript, true, m.keyList(n.timeout, n.idle, n.updated, n.options),
		w.now, w.k, w.v, m.rt.PublishCommand())
	if err != nil {
		return *new(V), false, m.fail(ctx, op, err)
	}
	return m.value(ctx, op, reply)
}

// flag reads a script's 1/0 reply.
func (m *MapCache[K, V]) flag(ctx context.Context, op string, reply any, err error) (bool, error) {
	if err != nil {
		return false, m.fail(ctx, op, err)
	}
	n, ok := reply.(int64)
	if !ok {
		return false, m.fail(ctx, op, fmt.Errorf("unexpected reply %v", reply))
	}
	return n == 1, nil
}
