package localcache

import (
	"bytes"
	"context"
	"crypto/rand"
	"slices"
	"strconv"
	"time"

	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/internal/lua"
)

// Redisson's RedissonLocalCachedMap scripts (the same text in 3.52.0 and
// 4.7.0).
var (
	putScript         = core.NewScript("local cached map put", lua.MustText(luaFiles, "lua/put.lua"))
	fastPutScript     = core.NewScript("local cached map fast put", lua.MustText(luaFiles, "lua/fast_put.lua"))
	putIfAbsentScript = core.NewScript("local cached map put if absent", lua.MustText(luaFiles, "lua/put_if_absent.lua"))
	putAllScript      = core.NewScript("local cached map put all", lua.MustText(luaFiles, "lua/put_all.lua"))
	removeScript      = core.NewScript("local cached map remove", lua.MustText(luaFiles, "lua/remove.lua"))
	fastRemoveScript  = core.NewScript("local cached map fast remove", lua.MustText(luaFiles, "lua/fast_remove.lua"))
	fastRemoveLogged  = core.NewScript("local cached map fast remove logged", lua.MustText(luaFiles, "lua/fast_remove_logged.lua"))
	deleteScript      = core.NewScript("local cached map delete", lua.MustText(luaFiles, "lua/delete.lua"))
)

// scriptKeys are KEYS of every write script: the map, its topic, its
// updates log.
func (m *LocalCachedMap[K, V]) scriptKeys() []string {
	return []string{m.name, m.topic(), m.updatesLog()}
}

// logEntryID is Redisson's generateLogEntryId: the key hash, ':', 8
// random bytes; the updates log's member.
func logEntryID(h hash) []byte {
	b := make([]byte, idLen+1+8)
	copy(b, h[:])
	b[idLen] = ':'
	_, _ = rand.Read(b[idLen+1:])
	return b
}

func nowMillis() string { return strconv.FormatInt(time.Now().UnixMilli(), 10) }

// syncMessage is createSyncMessage: UPDATE with the entry, else
// INVALIDATE of its hash.
func (m *LocalCachedMap[K, V]) syncMessage(k, v []byte, h hash) []byte {
	if m.opts.Sync == SyncUpdate {
		return encodeUpdate(m.id, update{k, v})
	}
	return encodeInvalidate(m.id, h)
}

// cachePut is Redisson's cachePut before a write is sent: the near cache
// holds the new value at once (a change, so a fill in flight of the old
// one does not land), unless a transaction disabled the key.
func (m *LocalCachedMap[K, V]) cachePut(key K, h hash, v V) (V, bool) {
	m.changed(h)
	s := m.store
	s.mu.Lock()
	defer s.mu.Unlock()
	if m.lisDisabled(h) {
		var zero V
		return zero, false
	}
	return s.putLocked(key, h, v)
}

// forget drops key after a write that failed: Redis may or may not hold
// what the near cache was given.
func (m *LocalCachedMap[K, V]) forget(key K, h hash) {
	m.changed(h)
	m.store.remove(key)
}

// kv encodes a key and a value, both before anything is sent.
func (m *LocalCachedMap[K, V]) kv(op string, key K, v V) ([]byte, []byte, error) {
	if err := m.checkKey(op, key); err != nil {
		return nil, nil, err
	}
	k, err := m.encodeKey(op, key)
	if err != nil {
		return nil, nil, err
	}
	data, err := m.encodeValue(op, v)
	return k, data, err
}

// Put stores v under key and returns the previous value, and whether
// there was one. The near cache holds v at once; Redisson's put script
// stores it in Redis and publishes the invalidation (or the update) to
// every other instance. StoreLocalCache: the near cache's previous value,
// and the message only.
func (m *LocalCachedMap[K, V]) Put(ctx context.Context, key K, v V) (V, bool, error) {
	var zero V
	if m == nil {
		return zero, false, core.NilHandle(kind, "put")
	}
	const op = "put"
	if err := m.begin(ctx, op); err != nil {
		return zero, false, err
	}
	k, data, err := m.kv(op, key, v)
	if err != nil {
		return zero, false, err
	}
	h := keyHash(k)
	prev, had := m.cachePut(key, h, v)
	if m.opts.StoreMode == StoreLocalCache {
		return prev, had, m.broadcast(ctx, op, k, data, h)
	}
	reply, err := m.eval(ctx, putScript, m.scriptKeys(), k, data, m.syncMessage(k, data, h),
		m.opts.onChange(), nowMillis(), logEntryID(h), m.rt.PublishCommand())
	if err != nil {
		m.forget(key, h)
		return zero, false, m.fail(ctx, op, err)
	}
	return m.decodeReply(op, reply)
}

// decodeReply decodes a script's value reply, or none.
func (m *LocalCachedMap[K, V]) decodeReply(op string, reply any) (V, bool, error) {
	var v V
	data, ok := reply.(string)
	if !ok {
		return v, false, nil
	}
	if err := m.values.Decode([]byte(data), &v); err != nil {
		return v, false, m.named(op, err)
	}
	return v, true, nil
}

// broadcast is broadcastLocalCacheStore (StoreLocalCache): publish the
// change, when the strategy publishes at all.
func (m *LocalCachedMap[K, V]) broadcast(ctx context.Context, op string, k, v []byte, h hash) error {
	if m.opts.onChange() == 0 {
		return nil
	}
	return m.publish(ctx, op, m.syncMessage(k, v, h))
}

// publish sends msg on the map's topic.
func (m *LocalCachedMap[K, V]) publish(ctx context.Context, op string, msg []byte) error {
	_, err := m.send(ctx, false, m.rt.PublishCommand(), m.topic(), msg)
	return m.fail(ctx, op, err)
}

// FastPut stores v under key and reports whether the key is new, without
// reading the previous value (Redisson's fastPut; StoreLocalCache: new to
// the near cache).
func (m *LocalCachedMap[K, V]) FastPut(ctx context.Context, key K, v V) (bool, error) {
	if m == nil {
		return false, core.NilHandle(kind, "fast put")
	}
	const op = "fast put"
	if err := m.begin(ctx, op); err != nil {
		return false, err
	}
	k, data, err := m.kv(op, key, v)
	if err != nil {
		return false, err
	}
	h := keyHash(k)
	_, had := m.cachePut(key, h, v)
	if m.opts.StoreMode == StoreLocalCache {
		return !had, m.broadcast(ctx, op, k, data, h)
	}
	reply, err := m.eval(ctx, fastPutScript, m.scriptKeys(), k, data, m.syncMessage(k, data, h),
		m.opts.onChange(), nowMillis(), logEntryID(h), m.rt.PublishCommand())
	if err != nil {
		m.forget(key, h)
		return false, m.fail(ctx, op, err)
	}
	n, _ := reply.(int64)
	return n == 1, nil
}

// PutIfAbsent stores v under key when the map has no value for it. It
// returns the value already there and true (nothing stored), or false when
// v was stored, then cached and published.
func (m *LocalCachedMap[K, V]) PutIfAbsent(ctx context.Context, key K, v V) (V, bool, error) {
	var zero V
	if m == nil {
		return zero, false, core.NilHandle(kind, "put if absent")
	}
	const op = "put if absent"
	if err := m.begin(ctx, op); err != nil {
		return zero, false, err
	}
	k, data, err := m.kv(op, key, v)
	if err != nil {
		return zero, false, err
	}
	h := keyHash(k)
	if m.opts.StoreMode == StoreLocalCache {
		return m.localPutIfAbsent(ctx, op, key, v, k, data, h)
	}
	mk := m.mark(h)
	reply, err := m.eval(ctx, putIfAbsentScript, m.scriptKeys(), k, data, m.syncMessage(k, data, h),
		m.opts.onChange(), nowMillis(), logEntryID(h), m.rt.PublishCommand())
	if err != nil {
		m.forget(key, h)
		return zero, false, m.fail(ctx, op, err)
	}
	old, had, err := m.decodeReply(op, reply)
	if err == nil && !had {
		m.fill(key, h, v, mk)
	}
	return old, had, err
}

func (m *LocalCachedMap[K, V]) localPutIfAbsent(ctx context.Context, op string, key K, v V, k, data []byte, h hash) (V, bool, error) {
	s := m.store
	s.mu.Lock()
	if e := s.byKey[key]; e != nil && !(s.timed() && s.expired(e, time.Now().UnixNano())) {
		old := e.val
		s.mu.Unlock()
		return old, true, nil
	}
	m.changed(h)
	s.putLocked(key, h, v)
	s.mu.Unlock()
	var zero V
	return zero, false, m.broadcast(ctx, op, k, data, h)
}

// PutAll stores every entry of entries in one script (Redisson's putAll:
// HMSET, then one message for all of them); every key and value is
// encoded before anything is sent. No entries: nothing is sent.
func (m *LocalCachedMap[K, V]) PutAll(ctx context.Context, entries map[K]V) error {
	if m == nil {
		return core.NilHandle(kind, "put all")
	}
	const op = "put all"
	if err := m.begin(ctx, op); err != nil {
		return err
	}
	if len(entries) == 0 {
		return nil
	}
	keys, enc, hashes, err := m.encodeAll(op, entries)
	if err != nil {
		return err
	}
	for i, key := range keys {
		m.cachePut(key, hashes[i], entries[key])
	}
	if m.opts.StoreMode == StoreLocalCache {
		for i := range keys {
			if err := m.broadcast(ctx, op, enc[i].key, enc[i].value, hashes[i]); err != nil {
				return err
			}
		}
		return nil
	}
	_, err = m.eval(ctx, putAllScript, m.scriptKeys(), m.putAllArgs(enc, hashes)...)
	if err != nil {
		for i, key := range keys {
			m.forget(key, hashes[i])
		}
	}
	return m.fail(ctx, op, err)
}

// encodeAll encodes entries in the order of their encoded keys: a Go map
// has none, and one order makes the script's arguments and its message
// the same every time.
func (m *LocalCachedMap[K, V]) encodeAll(op string, entries map[K]V) ([]K, []update, []hash, error) {
	type item struct {
		key K
		enc update
	}
	items := make([]item, 0, len(entries))
	for key, v := range entries {
		k, data, err := m.kv(op, key, v)
		if err != nil {
			return nil, nil, nil, err
		}
		items = append(items, item{key, update{k, data}})
	}
	slices.SortFunc(items, func(a, b item) int { return bytes.Compare(a.enc.key, b.enc.key) })
	keys := make([]K, len(items))
	enc := make([]update, len(items))
	hashes := make([]hash, len(items))
	for i, it := range items {
		keys[i], enc[i], hashes[i] = it.key, it.enc, keyHash(it.enc.key)
	}
	return keys, enc, hashes, nil
}

// putAllArgs is putAllOperationAsync's ARGV: the publish command, the
// change mode, twice the count, the keys and values, with the updates log
// a time and an entry id per key, and the message (none with SyncNone:
// then, with ReconnectLoad, Redisson's script publishes the last entry id
// as the message, and so does this).
func (m *LocalCachedMap[K, V]) putAllArgs(enc []update, hashes []hash) []any {
	onChange := m.opts.onChange()
	args := make([]any, 0, 4+4*len(enc))
	args = append(args, m.rt.PublishCommand(), onChange, 2*len(enc))
	for _, e := range enc {
		args = append(args, e.key, e.value)
	}
	if onChange == 2 {
		now := nowMillis()
		for _, h := range hashes {
			args = append(args, now, logEntryID(h))
		}
	}
	switch m.opts.Sync {
	case SyncUpdate:
		args = append(args, encodeUpdate(m.id, enc...))
	case SyncInvalidate:
		args = append(args, encodeInvalidate(m.id, hashes...))
	}
	return args
}

// Remove deletes key and returns its value, and whether there was one
// (Redisson's remove: HGET, HDEL and the invalidation in one script). The
// near cache drops it at once. StoreLocalCache: the near cache's value,
// and the invalidation.
func (m *LocalCachedMap[K, V]) Remove(ctx context.Context, key K) (V, bool, error) {
	var zero V
	if m == nil {
		return zero, false, core.NilHandle(kind, "remove")
	}
	const op = "remove"
	if err := m.begin(ctx, op); err != nil {
		return zero, false, err
	}
	if err := m.checkKey(op, key); err != nil {
		return zero, false, err
	}
	k, err := m.encodeKey(op, key)
	if err != nil {
		return zero, false, err
	}
	h := keyHash(k)
	m.changed(h)
	prev, had := m.store.remove(key)
	msg := encodeInvalidate(m.id, h)
	if m.opts.StoreMode == StoreLocalCache {
		return prev, had, m.publish(ctx, op, msg)
	}
	reply, err := m.eval(ctx, removeScript, m.scriptKeys(), k, msg,
		m.opts.onChange(), nowMillis(), logEntryID(h), m.rt.PublishCommand())
	if err != nil {
		return zero, false, m.fail(ctx, op, err)
	}
	return m.decodeReply(op, reply)
}

// FastRemove deletes keys and returns how many the map had (Redisson's
// fastRemove: HDEL, with an invalidation per deleted key unless SyncNone).
// No keys: nothing is sent, 0.
func (m *LocalCachedMap[K, V]) FastRemove(ctx context.Context, keys ...K) (int64, error) {
	if m == nil {
		return 0, core.NilHandle(kind, "fast remove")
	}
	const op = "fast remove"
	if err := m.begin(ctx, op); err != nil {
		return 0, err
	}
	enc := make([][]byte, len(keys))
	hashes := make([]hash, len(keys))
	for i, key := range keys {
		if err := m.checkKey(op, key); err != nil {
			return 0, err
		}
		k, err := m.encodeKey(op, key)
		if err != nil {
			return 0, err
		}
		enc[i], hashes[i] = k, keyHash(k)
	}
	if len(keys) == 0 {
		return 0, nil
	}
	var had []bool
	for i, key := range keys {
		m.changed(hashes[i])
		_, ok := m.store.remove(key)
		had = append(had, ok)
	}
	if m.opts.StoreMode == StoreLocalCache {
		return m.localFastRemove(ctx, op, had, hashes)
	}
	return m.fastRemove(ctx, op, enc, hashes)
}

func (m *LocalCachedMap[K, V]) localFastRemove(ctx context.Context, op string, had []bool, hashes []hash) (int64, error) {
	var n int64
	for i, ok := range had {
		if !ok {
			continue
		}
		n++
		if err := m.publish(ctx, op, encodeInvalidate(m.id, hashes[i])); err != nil {
			return n, err
		}
	}
	return n, nil
}

func (m *LocalCachedMap[K, V]) fastRemove(ctx context.Context, op string, enc [][]byte, hashes []hash) (int64, error) {
	var reply any
	var err error
	switch m.opts.onChange() {
	case 1:
		args := []any{m.rt.PublishCommand()}
		for i, k := range enc {
			args = append(args, k, encodeInvalidate(m.id, hashes[i]))
		}
		reply, err = m.eval(ctx, fastRemoveScript, m.scriptKeys()[:2], args...)
	case 2:
		args := []any{nowMillis(), m.rt.PublishCommand()}
		for i, k := range enc {
			args = append(args, k, encodeInvalidate(m.id, hashes[i]), logEntryID(hashes[i]))
		}
		reply, err = m.eval(ctx, fastRemoveLogged, m.scriptKeys(), args...)
	default:
		args := []any{"hdel", m.name}
		for _, k := range enc {
			args = append(args, k)
		}
		var cmd interface{ Val() any }
		cmd, err = m.send(ctx, false, args...)
		if err == nil {
			reply = cmd.Val()
		}
	}
	if err != nil {
		return 0, m.fail(ctx, op, err)
	}
	n, _ := reply.(int64)
	return n, nil
}

// Delete deletes the map and its updates log and reports whether either
// existed; with a sync strategy other than SyncNone (or ReconnectLoad) it
// publishes a clear, and every instance's near cache empties (Redisson's
// delete and clear). StoreLocalCache: ClearLocalCache, true.
func (m *LocalCachedMap[K, V]) Delete(ctx context.Context) (bool, error) {
	if m == nil {
		return false, core.NilHandle(kind, "delete")
	}
	const op = "delete"
	if err := m.begin(ctx, op); err != nil {
		return false, err
	}
	m.clearLocal()
	if m.opts.StoreMode == StoreLocalCache {
		return true, m.clearOthers(ctx, op)
	}
	var request [idLen]byte
	_, _ = rand.Read(request[:])
	reply, err := m.eval(ctx, deleteScript, m.scriptKeys(), encodeClear(m.id, request, false),
		m.opts.onChange(), m.rt.PublishCommand())
	if err != nil {
		return false, m.fail(ctx, op, err)
	}
	n, _ := reply.(int64)
	return n == 1, nil
}

// Clear is Delete without its result (Redisson's clear).
func (m *LocalCachedMap[K, V]) Clear(ctx context.Context) error {
	_, err := m.Delete(ctx)
	return err
}

// ClearLocalCache empties this instance's near cache and, unless
// SyncNone, every other instance's, as Redisson's clearLocalCache: it sets
// the semaphore NAME:clear:<request id> to 0 permits (60 s TTL), publishes
// the clear message asking each receiver to release one permit, waits
// until every other receiver PUBLISH counted did (at most 40 s, or until
// ctx ends), then deletes the semaphore. A wait that runs out is no error,
// as in Java: the clear was published, a receiver was slow or does not
// answer (a pattern subscriber that PUBLISH counts never does).
func (m *LocalCachedMap[K, V]) ClearLocalCache(ctx context.Context) error {
	if m == nil {
		return core.NilHandle(kind, "clear local cache")
	}
	const op = "clear local cache"
	if err := m.begin(ctx, op); err != nil {
		return err
	}
	m.clearLocal()
	return m.clearOthers(ctx, op)
}
