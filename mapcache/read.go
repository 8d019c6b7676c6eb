package mapcache

import (
	"context"
	"fmt"
	"time"

	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/internal/objbase"
)

// Get returns the live value of key, and false when the map has none or
// it has expired (Redisson's get). Like Java's, it restarts the entry's
// max idle time and, with a size limit, counts as an access.
func (m *MapCache[K, V]) Get(ctx context.Context, key K) (V, bool, error) {
	if m == nil {
		return *new(V), false, core.NilHandle(kind, "get")
	}
	const op = "get"
	if err := m.base.Check(ctx, op); err != nil {
		return *new(V), false, err
	}
	k, err := m.encodeKey(op, key)
	if err != nil {
		return *new(V), false, err
	}
	n := m.k
	reply, err := m.eval(ctx, getScript, false, m.keyList(n.timeout, n.idle, n.lastAccess, n.options), now(), k)
	if err != nil {
		return *new(V), false, m.base.Fail(ctx, op, err)
	}
	return m.value(ctx, op, reply)
}

// GetAll returns the live values of keys, missing and expired keys left
// out (Redisson's getAll, which restarts max idle times as Get does). No
// keys: nothing is sent, an empty map.
func (m *MapCache[K, V]) GetAll(ctx context.Context, keys ...K) (map[K]V, error) {
	if m == nil {
		return nil, core.NilHandle(kind, "get all")
	}
	const op = "get all"
	if err := m.base.Check(ctx, op); err != nil {
		return nil, err
	}
	out := make(map[K]V, len(keys))
	if len(keys) == 0 {
		return out, nil
	}
	enc, err := m.encodeKeys(op, keys)
	if err != nil {
		return nil, err
	}
	n := m.k
	reply, err := m.eval(ctx, getAllScript, false, m.keyList(n.timeout, n.idle, n.lastAccess, n.options),
		append([]any{now()}, enc...)...)
	if err != nil {
		return nil, m.base.Fail(ctx, op, err)
	}
	vals, ok := reply.([]any)
	if !ok || len(vals) != len(keys) {
		return nil, m.base.Fail(ctx, op, fmt.Errorf("unexpected reply %v for %d keys", reply, len(keys)))
	}
	for i, raw := range vals {
		v, ok, err := m.value(ctx, op, raw)
		if err != nil {
			return nil, err
		}
		if ok {
			out[keys[i]] = v
		}
	}
	return out, nil
}

// ContainsKey reports whether the map has a live value for key
// (Redisson's containsKey, which restarts the max idle time of a live
// entry).
func (m *MapCache[K, V]) ContainsKey(ctx context.Context, key K) (bool, error) {
	if m == nil {
		return false, core.NilHandle(kind, "contains key")
	}
	const op = "contains key"
	if err := m.base.Check(ctx, op); err != nil {
		return false, err
	}
	k, err := m.encodeKey(op, key)
	if err != nil {
		return false, err
	}
	n := m.k
	reply, err := m.eval(ctx, containsKeyScript, false, m.keyList(n.timeout, n.idle, n.lastAccess, n.options), now(), k)
	return m.flag(ctx, op, reply, err)
}

// Size returns the number of entries stored (HLEN), as Redisson's size:
// expired entries not yet cleaned up are counted.
func (m *MapCache[K, V]) Size(ctx context.Context) (int64, error) {
	if m == nil {
		return 0, core.NilHandle(kind, "size")
	}
	const op = "size"
	if err := m.base.Check(ctx, op); err != nil {
		return 0, err
	}
	n, err := objbase.Bounded(ctx, m.base.Runtime(), func(ctx context.Context) (int64, error) { return m.base.Redis().HLen(ctx, m.base.Name()).Result() })
	if err != nil {
		return 0, m.base.Fail(ctx, op, err)
	}
	return n, nil
}

// EntryRemainTTL returns how long key has to live, the nearer of its TTL
// and its max idle deadline, with go-redis' conventions for the special
// cases as Redisson's remainTimeToLive(key) has them in ms: -1
// (nanoseconds) when the entry never expires, -2 when the map has no live
// entry for key.
func (m *MapCache[K, V]) EntryRemainTTL(ctx context.Context, key K) (time.Duration, error) {
	if m == nil {
		return 0, core.NilHandle(kind, "entry remain ttl")
	}
	const op = "entry remain ttl"
	if err := m.base.Check(ctx, op); err != nil {
		return 0, err
	}
	k, err := m.encodeKey(op, key)
	if err != nil {
		return 0, err
	}
	reply, err := m.eval(ctx, remainTimeToLiveScript, false, m.keyList(m.k.timeout, m.k.idle), now(), k)
	if err != nil {
		return 0, m.base.Fail(ctx, op, err)
	}
	ms, ok := reply.(int64)
	if !ok {
		return 0, m.base.Fail(ctx, op, fmt.Errorf("unexpected reply %v", reply))
	}
	if ms < 0 {
		return time.Duration(ms), nil
	}
	return time.Duration(ms) * time.Millisecond, nil
}

// ReadAll returns every live entry in one script (Redisson's readAllMap,
// which restarts max idle times as Get does). For a map that may be large,
// iterate with Entries.
func (m *MapCache[K, V]) ReadAll(ctx context.Context) (map[K]V, error) {
	if m == nil {
		return nil, core.NilHandle(kind, "read all")
	}
	const op = "read all"
	if err := m.base.Check(ctx, op); err != nil {
		return nil, err
	}
	n := m.k
	reply, err := m.eval(ctx, readAllScript, false, m.keyList(n.timeout, n.idle, n.lastAccess, n.options), now())
	if err != nil {
		return nil, m.base.Fail(ctx, op, err)
	}
	flat, ok := reply.([]any)
	if !ok || len(flat)%2 != 0 {
		return nil, m.base.Fail(ctx, op, fmt.Errorf("unexpected reply %v", reply))
	}
	out := make(map[K]V, len(flat)/2)
	for i := 0; i < len(flat); i += 2 {
		ks, _ := flat[i].(string)
		k, err := m.decodeKey(ks)
		if err != nil {
			return nil, m.base.Fail(ctx, op, err)
		}
		v, _, err := m.value(ctx, op, flat[i+1])
		if err != nil {
			return nil, err
		}
		out[k] = v
	}
	return out, nil
}
