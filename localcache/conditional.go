package localcache

import (
	"bytes"
	"context"
	"time"

	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/internal/lua"
)

// Redisson's RedissonLocalCachedMap scripts of its conditional writes, its
// addAndGet and its readAllMap (the same text in 3.52.0 and 4.7.0).
var (
	putIfExistsScript     = core.NewScript("local cached map put if exists", lua.MustText(luaFiles, "lua/put_if_exists.lua"))
	fastPutIfAbsentScript = core.NewScript("local cached map fast put if absent", lua.MustText(luaFiles, "lua/fast_put_if_absent.lua"))
	fastPutIfExistsScript = core.NewScript("local cached map fast put if exists", lua.MustText(luaFiles, "lua/fast_put_if_exists.lua"))
	replaceScript         = core.NewScript("local cached map replace", lua.MustText(luaFiles, "lua/replace.lua"))
	replaceValueScript    = core.NewScript("local cached map replace value", lua.MustText(luaFiles, "lua/replace_value.lua"))
	fastReplaceScript     = core.NewScript("local cached map fast replace", lua.MustText(luaFiles, "lua/fast_replace.lua"))
	removeValueScript     = core.NewScript("local cached map remove value", lua.MustText(luaFiles, "lua/remove_value.lua"))
	addAndGetScript       = core.NewScript("local cached map add and get", lua.MustText(luaFiles, "lua/add_and_get.lua"))
	readAllScript         = core.NewScript("local cached map read all", lua.MustText(luaFiles, "lua/read_all.lua"))
)

// written is what a conditional write prepared: the key, its encoding,
// the value's, its hash, and the near cache's counters before it was sent.
type written[K comparable] struct {
	key  K
	k, v []byte
	h    hash
	mk   mark
}

// prepare checks a conditional write of v under key and encodes both.
func (m *LocalCachedMap[K, V]) prepare(ctx context.Context, op string, key K, v V) (written[K], error) {
	if err := m.begin(ctx, op); err != nil {
		return written[K]{}, err
	}
	k, data, err := m.kv(op, key, v)
	if err != nil {
		return written[K]{}, err
	}
	h := keyHash(k)
	return written[K]{key: key, k: k, v: data, h: h, mk: m.mark(h)}, nil
}

// logTail is the last three arguments of every write script: the time and
// the entry of the updates log, and the publish command.
func (m *LocalCachedMap[K, V]) logTail(h hash) []any {
	return []any{nowMillis(), logEntryID(h), m.rt.PublishCommand()}
}

// run sends a write script for w; a failure leaves the key out of the
// near cache, since Redis may or may not have changed.
func (m *LocalCachedMap[K, V]) run(ctx context.Context, op string, s *core.Script, w written[K], args ...any) (any, error) {
	reply, err := m.eval(ctx, s, m.scriptKeys(), args...)
	if err != nil {
		m.forget(w.key, w.h)
		return nil, m.fail(ctx, op, err)
	}
	return reply, nil
}

// msgFirst is the ARGV of the put-if scripts: key, value, message, change
// mode, then the log and the publish command.
func (m *LocalCachedMap[K, V]) msgFirst(w written[K]) []any {
	return append([]any{w.k, w.v, m.syncMessage(w.k, w.v, w.h), m.opts.onChange()}, m.logTail(w.h)...)
}

// modeFirst is the ARGV of the replace scripts: key, value, change mode,
// message, then the log and the publish command.
func (m *LocalCachedMap[K, V]) modeFirst(w written[K]) []any {
	return append([]any{w.k, w.v, m.opts.onChange(), m.syncMessage(w.k, w.v, w.h)}, m.logTail(w.h)...)
}

// PutIfExists stores v under key when the map has a value for it and
// returns that value and true; false when it has none (nothing stored,
// nothing published). As Redisson's putIfExists, the near cache holds v
// once the write succeeded. StoreLocalCache: the near cache decides.
func (m *LocalCachedMap[K, V]) PutIfExists(ctx context.Context, key K, v V) (V, bool, error) {
	return m.ifExists(ctx, "put if exists", putIfExistsScript, key, v)
}

// Replace is PutIfExists with Redisson's replace script (HEXISTS, then
// HGET and HSET): it stores v under key when the map has a value for it
// and returns the value replaced and true, or false.
func (m *LocalCachedMap[K, V]) Replace(ctx context.Context, key K, v V) (V, bool, error) {
	return m.ifExists(ctx, "replace", replaceScript, key, v)
}

// ifExists runs putIfExists or replace (whose arguments differ in order
// only) for v under key and returns the value it found.
func (m *LocalCachedMap[K, V]) ifExists(ctx context.Context, op string, s *core.Script, key K, v V) (V, bool, error) {
	var zero V
	if m == nil {
		return zero, false, core.NilHandle(kind, op)
	}
	w, err := m.prepare(ctx, op, key, v)
	if err != nil {
		return zero, false, err
	}
	if m.opts.StoreMode == StoreLocalCache {
		return m.localReplace(ctx, op, w, v, nil)
	}
	args := m.msgFirst(w)
	if s == replaceScript {
		args = m.modeFirst(w)
	}
	reply, err := m.run(ctx, op, s, w, args...)
	if err != nil {
		return zero, false, err
	}
	old, had, err := m.decodeReply(op, reply)
	if err == nil && had {
		m.fill(key, w.h, v, w.mk)
	}
	return old, had, err
}

// FastPutIfAbsent stores v under key when the map has no value for it and
// reports whether it did (Redisson's fastPutIfAbsent).
func (m *LocalCachedMap[K, V]) FastPutIfAbsent(ctx context.Context, key K, v V) (bool, error) {
	if m == nil {
		return false, core.NilHandle(kind, "fast put if absent")
	}
	const op = "fast put if absent"
	w, err := m.prepare(ctx, op, key, v)
	if err != nil {
		return false, err
	}
	if m.opts.StoreMode == StoreLocalCache {
		_, had, err := m.localPutIfAbsent(ctx, op, key, v, w.k, w.v, w.h)
		return !had, err
	}
	reply, err := m.run(ctx, op, fastPutIfAbsentScript, w, m.msgFirst(w)...)
	return m.flagFill(w, v, reply, err)
}

// FastPutIfExists stores v under key when the map has a value for it and
// reports whether it did (Redisson's fastPutIfExists).
func (m *LocalCachedMap[K, V]) FastPutIfExists(ctx context.Context, key K, v V) (bool, error) {
	return m.fastIfExists(ctx, "fast put if exists", fastPutIfExistsScript, key, v)
}

// FastReplace stores v under key when the map has a value for it and
// reports whether it did (Redisson's fastReplace: HEXISTS, then HSET).
func (m *LocalCachedMap[K, V]) FastReplace(ctx context.Context, key K, v V) (bool, error) {
	return m.fastIfExists(ctx, "fast replace", fastReplaceScript, key, v)
}

func (m *LocalCachedMap[K, V]) fastIfExists(ctx context.Context, op string, s *core.Script, key K, v V) (bool, error) {
	if m == nil {
		return false, core.NilHandle(kind, op)
	}
	w, err := m.prepare(ctx, op, key, v)
	if err != nil {
		return false, err
	}
	if m.opts.StoreMode == StoreLocalCache {
		_, had, err := m.localReplace(ctx, op, w, v, nil)
		return had, err
	}
	args := m.msgFirst(w)
	if s == fastReplaceScript {
		args = m.modeFirst(w)
	}
	reply, err := m.run(ctx, op, s, w, args...)
	return m.flagFill(w, v, reply, err)
}

// flagFill reads a script's 1/0 reply and, on 1, caches v.
func (m *LocalCachedMap[K, V]) flagFill(w written[K], v V, reply any, err error) (bool, error) {
	if err != nil {
		return false, err
	}
	if n, _ := reply.(int64); n != 1 {
		return false, nil
	}
	m.fill(w.key, w.h, v, w.mk)
	return true, nil
}

// CompareAndReplace stores v under key when the map's value for it is
// old (compared encoded, as Redis holds them) and reports whether it did
// (Redisson's replace(key, oldValue, newValue)).
func (m *LocalCachedMap[K, V]) CompareAndReplace(ctx context.Context, key K, old, v V) (bool, error) {
	if m == nil {
		return false, core.NilHandle(kind, "compare and replace")
	}
	const op = "compare and replace"
	w, err := m.prepare(ctx, op, key, v)
	if err != nil {
		return false, err
	}
	was, err := m.encodeValue(op, old)
	if err != nil {
		return false, err
	}
	if m.opts.StoreMode == StoreLocalCache {
		_, had, err := m.localReplace(ctx, op, w, v, was)
		return had, err
	}
	args := append([]any{w.k, was, w.v, m.opts.onChange(), m.syncMessage(w.k, w.v, w.h)}, m.logTail(w.h)...)
	reply, err := m.run(ctx, op, replaceValueScript, w, args...)
	return m.flagFill(w, v, reply, err)
}

// CompareAndRemove deletes key when the map's value for it is v (compared
// encoded) and reports whether it did (Redisson's remove(key, value)). It
// publishes an invalidation whatever the sync strategy, as Redisson does.
func (m *LocalCachedMap[K, V]) CompareAndRemove(ctx context.Context, key K, v V) (bool, error) {
	if m == nil {
		return false, core.NilHandle(kind, "compare and remove")
	}
	const op = "compare and remove"
	w, err := m.prepare(ctx, op, key, v)
	if err != nil {
		return false, err
	}
	if m.opts.StoreMode == StoreLocalCache {
		return m.localRemove(ctx, op, w)
	}
	args := append([]any{w.k, w.v, m.opts.onChange(), encodeInvalidate(m.id, w.h)}, m.logTail(w.h)...)
	reply, err := m.run(ctx, op, removeValueScript, w, args...)
	if err != nil {
		return false, err
	}
	if n, _ := reply.(int64); n != 1 {
		return false, nil
	}
	m.changed(w.h)
	m.store.remove(key)
	return true, nil
}

// liveLocked returns key's entry unless it is missing or expired;
// store.mu held.
func (s *store[K, V]) liveLocked(key K) *entry[K, V] {
	e := s.byKey[key]
	if e == nil || s.timed() && s.expired(e, time.Now().UnixNano()) {
		return nil
	}
	return e
}

// localReplace is the StoreLocalCache form of the replace family: v
// replaces key's cached value when there is one (and, when was is set,
// only when that value encodes to was), then the change is published.
func (m *LocalCachedMap[K, V]) localReplace(ctx context.Context, op string, w written[K], v V, was []byte) (V, bool, error) {
	var zero V
	s := m.store
	s.mu.Lock()
	e := s.liveLocked(w.key)
	if e == nil || m.lisDisabled(w.h) {
		s.mu.Unlock()
		return zero, false, nil
	}
	old := e.val
	if was != nil {
		if cur, err := m.values.Encode(old); err != nil || !bytes.Equal(cur, was) {
			s.mu.Unlock()
			return zero, false, nil
		}
	}
	m.changed(w.h)
	s.putLocked(w.key, w.h, v)
	s.mu.Unlock()
	return old, true, m.broadcast(ctx, op, w.k, w.v, w.h)
}

// localRemove is CompareAndRemove in StoreLocalCache mode. Redisson sends
// an UPDATE of the removed value here under SyncUpdate, which would put
// the entry back in the receivers' caches; this sends an invalidation,
// which removes it.
func (m *LocalCachedMap[K, V]) localRemove(ctx context.Context, op string, w written[K]) (bool, error) {
	s := m.store
	s.mu.Lock()
	e := s.liveLocked(w.key)
	if e == nil {
		s.mu.Unlock()
		return false, nil
	}
	if cur, err := m.values.Encode(e.val); err != nil || !bytes.Equal(cur, w.v) {
		s.mu.Unlock()
		return false, nil
	}
	m.changed(w.h)
	s.unlink(e)
	s.mu.Unlock()
	if m.opts.onChange() == 0 {
		return true, nil
	}
	return true, m.publish(ctx, op, encodeInvalidate(m.id, w.h))
}
