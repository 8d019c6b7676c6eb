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
			return expiry{}, m.base.Invalid(op, "the %s %v is neither zero nor a millisecond or more", d.what, d.d)
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
	if err := m.base.Check(ctx, op); err != nil {
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
	return append([]string{m.base.Name()}, names...)
}

// putScripts is one put variant's pair of Redisson scripts, each with
// the KEYS it takes after the name: plain for an entry without expiry,
// ttl for one with a TTL or a max idle time (nil: the variant takes no
// expiry).
type putScripts struct {
	plain, ttl         *core.Script
	plainKeys, ttlKeys []string
	// leaseToken: ttl takes the lease token last, empty for a write
	// without a lease (fastPut's).
	leaseToken bool
}

// put encodes and checks the entry write, then runs the variant's script
// for its expiry: ARGV are the clock, the expiry (ttl only), the key, the
// value and the publish command. Its error names the map and op.
func (m *MapCache[K, V]) put(ctx context.Context, op string, key K, v V, opts []EntryOption, p putScripts) (any, error) {
	w, err := m.prepare(ctx, op, key, v, opts)
	if err != nil {
		return nil, err
	}
	pub := m.base.Runtime().PublishCommand()
	s, keys, args := p.plain, p.plainKeys, []any{w.now, w.k, w.v, pub}
	if !w.e.none() {
		s, keys, args = p.ttl, p.ttlKeys, []any{w.now, w.e.at, w.e.idleAt, w.e.idle, w.k, w.v, pub}
		if p.leaseToken {
			args = append(args, "")
		}
	}
	reply, err := m.eval(ctx, s, true, m.keyList(keys...), args...)
	if err != nil {
		return nil, m.base.Fail(ctx, op, err)
	}
	return reply, nil
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
	n := m.k
	reply, err := m.put(ctx, op, key, v, opts, putScripts{
		plain:     putScript,
		plainKeys: []string{n.timeout, n.idle, n.created, n.updated, n.lastAccess, n.removed, n.options, n.lease},
		ttl:       putTTLScript,
		ttlKeys:   []string{n.timeout, n.idle, n.created, n.updated, n.lastAccess, n.removed, n.options},
	})
	if err != nil {
		return *new(V), false, err
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
	n := m.k
	reply, err := m.put(ctx, op, key, v, opts, putScripts{
		plain:      fastPutScript,
		plainKeys:  []string{n.timeout, n.idle, n.created, n.updated, n.lastAccess, n.removed, n.options},
		ttl:        fastPutTTLScript,
		ttlKeys:    []string{n.timeout, n.idle, n.created, n.updated, n.lastAccess, n.removed, n.options, n.lease},
		leaseToken: true,
	})
	if err != nil {
		return false, err
	}
	return m.flag(ctx, op, reply, nil)
}

// PutIfAbsent stores v under key when the map has no live value for it.
// It returns the live value and true when there is one (nothing is
// stored), or false when v was stored (Redisson's putIfAbsent).
func (m *MapCache[K, V]) PutIfAbsent(ctx context.Context, key K, v V, opts ...EntryOption) (V, bool, error) {
	if m == nil {
		return *new(V), false, core.NilHandle(kind, "put if absent")
	}
	const op = "put if absent"
	n := m.k
	reply, err := m.put(ctx, op, key, v, opts, putScripts{
		plain:     putIfAbsentScript,
		plainKeys: []string{n.timeout, n.idle, n.created, n.lastAccess, n.removed, n.options},
		ttl:       putIfAbsentTTLScript,
		ttlKeys:   []string{n.timeout, n.idle, n.created, n.lastAccess, n.removed, n.options, n.lease},
	})
	if err != nil {
		return *new(V), false, err
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
	n := m.k
	keys := []string{n.timeout, n.idle, n.created, n.lastAccess, n.removed, n.options}
	reply, err := m.put(ctx, op, key, v, opts, putScripts{
		plain: fastPutIfAbsentScript, plainKeys: keys,
		ttl: fastPutIfAbsentTTLScript, ttlKeys: keys,
	})
	if err != nil {
		return false, err
	}
	return m.flag(ctx, op, reply, nil)
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
	n := m.k
	reply, err := m.put(ctx, op, key, v, nil, putScripts{plain: fastPutIfExistsScript,
		plainKeys: []string{n.timeout, n.idle, n.updated, n.lastAccess, n.removed, n.options}})
	if err != nil {
		return false, err
	}
	return m.flag(ctx, op, reply, nil)
}

// Replace stores v under key when the map has a live value for it, keeping
// the entry's TTL and max idle time, and returns the value replaced and
// true, or false when there was none (Redisson's replace(key, value)).
func (m *MapCache[K, V]) Replace(ctx context.Context, key K, v V) (V, bool, error) {
	if m == nil {
		return *new(V), false, core.NilHandle(kind, "replace")
	}
	const op = "replace"
	n := m.k
	reply, err := m.put(ctx, op, key, v, nil, putScripts{plain: replaceScript,
		plainKeys: []string{n.timeout, n.idle, n.updated, n.options}})
	if err != nil {
		return *new(V), false, err
	}
	return m.value(ctx, op, reply)
}

// flag reads a script's 1/0 reply.
func (m *MapCache[K, V]) flag(ctx context.Context, op string, reply any, err error) (bool, error) {
	if err != nil {
		return false, m.base.Fail(ctx, op, err)
	}
	n, ok := reply.(int64)
	if !ok {
		return false, m.base.Fail(ctx, op, fmt.Errorf("unexpected reply %v", reply))
	}
	return n == 1, nil
}
