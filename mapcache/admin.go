package mapcache

import (
	"context"
	"fmt"
	"time"

	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/internal/eviction"
	"github.com/goredisson/redisson/internal/objbase"
)

// Remove deletes key and returns its live value, and whether there was one
// (Redisson's remove; an expired entry is deleted too, and reads as none).
func (m *MapCache[K, V]) Remove(ctx context.Context, key K) (V, bool, error) {
	if m == nil {
		return *new(V), false, core.NilHandle(kind, "remove")
	}
	const op = "remove"
	if err := m.base.Check(ctx, op); err != nil {
		return *new(V), false, err
	}
	k, err := m.encodeKey(op, key)
	if err != nil {
		return *new(V), false, err
	}
	n := m.k
	reply, err := m.eval(ctx, removeScript, true, m.keyList(n.timeout, n.idle, n.removed, n.lastAccess, n.options),
		now(), k, m.base.Runtime().PublishCommand())
	if err != nil {
		return *new(V), false, m.base.Fail(ctx, op, err)
	}
	return m.value(ctx, op, reply)
}

// FastRemove deletes keys and returns how many the map had, expired ones
// included (Redisson's fastRemove). No keys: nothing is sent, 0.
func (m *MapCache[K, V]) FastRemove(ctx context.Context, keys ...K) (int64, error) {
	if m == nil {
		return 0, core.NilHandle(kind, "fast remove")
	}
	const op = "fast remove"
	if err := m.base.Check(ctx, op); err != nil {
		return 0, err
	}
	if len(keys) == 0 {
		return 0, nil
	}
	enc, err := m.encodeKeys(op, keys)
	if err != nil {
		return 0, err
	}
	n := m.k
	reply, err := m.eval(ctx, fastRemoveScript, true, m.keyList(n.timeout, n.idle, n.removed, n.lastAccess, n.options),
		append([]any{m.base.Runtime().PublishCommand()}, enc...)...)
	if err != nil {
		return 0, m.base.Fail(ctx, op, err)
	}
	count, ok := reply.(int64)
	if !ok {
		return 0, m.base.Fail(ctx, op, fmt.Errorf("unexpected reply %v", reply))
	}
	return count, nil
}

// EvictionMode is how a map cache with a size limit picks the entry a new
// one evicts. The zero value is LRU, Redisson's default.
type EvictionMode int

const (
	// LRU evicts the least recently read or written entry.
	LRU EvictionMode = iota
	// LFU evicts the least often read or written entry.
	LFU
)

// String returns the mode as Redisson stores it: "LRU" or "LFU".
func (e EvictionMode) String() string {
	switch e {
	case LRU:
		return "LRU"
	case LFU:
		return "LFU"
	}
	return fmt.Sprintf("EvictionMode(%d)", int(e))
}

func (m *MapCache[K, V]) sizeArgs(op string, maxSize int, mode EvictionMode) error {
	if maxSize < 0 {
		return m.base.Invalid(op, "the max size must not be negative, got %d", maxSize)
	}
	if mode != LRU && mode != LFU {
		return m.base.Invalid(op, "unknown eviction mode %d", int(mode))
	}
	return nil
}

// SetMaxSize limits the map to maxSize entries (0: no limit), evicting by
// mode when a write adds one more (Redisson's setMaxSize(maxSize, mode):
// HMSET of max-size and mode in the options hash). Entries already over
// the limit stay until the next write that adds an entry.
func (m *MapCache[K, V]) SetMaxSize(ctx context.Context, maxSize int, mode EvictionMode) error {
	if m == nil {
		return core.NilHandle(kind, "set max size")
	}
	const op = "set max size"
	if err := m.base.Check(ctx, op); err != nil {
		return err
	}
	if err := m.sizeArgs(op, maxSize, mode); err != nil {
		return err
	}
	_, err := objbase.Bounded(ctx, m.base.Runtime(), func(ctx context.Context) (bool, error) {
		return m.base.Redis().HMSet(ctx, m.k.options, "max-size", maxSize, "mode", mode.String()).Result()
	})
	if objbase.IsWrongType(err) {
		return m.base.Named(op, core.WrongTypeError(ctx, m.base.Redis(), m.k.options, "hash"))
	}
	return m.base.Named(op, err)
}

// TrySetMaxSize sets the limit and mode as SetMaxSize does unless they are
// set already, and reports whether it set them (Redisson's trySetMaxSize).
func (m *MapCache[K, V]) TrySetMaxSize(ctx context.Context, maxSize int, mode EvictionMode) (bool, error) {
	if m == nil {
		return false, core.NilHandle(kind, "try set max size")
	}
	const op = "try set max size"
	if err := m.base.Check(ctx, op); err != nil {
		return false, err
	}
	if err := m.sizeArgs(op, maxSize, mode); err != nil {
		return false, err
	}
	reply, err := m.eval(ctx, trySetMaxSizeScript, true, []string{m.k.options}, maxSize, mode.String())
	return m.flag(ctx, op, reply, err)
}

// Expire gives the map, its sorted sets and (with a size limit) its
// options a time to live and reports whether the map existed (Redisson's
// expire, which PEXPIREs every key of the map cache).
func (m *MapCache[K, V]) Expire(ctx context.Context, ttl time.Duration) (bool, error) {
	if m == nil {
		return false, core.NilHandle(kind, "expire")
	}
	const op = "expire"
	if err := m.base.Check(ctx, op); err != nil {
		return false, err
	}
	if ttl < time.Millisecond {
		return false, m.base.Invalid(op, "the TTL %v is less than a millisecond", ttl)
	}
	n := m.k
	reply, err := m.eval(ctx, expireScript, true, m.keyList(n.timeout, n.idle, n.lastAccess, n.options),
		ttl.Milliseconds(), "")
	return m.flag(ctx, op, reply, err)
}

// ClearExpire removes the map's time to live from every key of the map
// cache and reports whether the map had one (Redisson's clearExpire).
func (m *MapCache[K, V]) ClearExpire(ctx context.Context) (bool, error) {
	if m == nil {
		return false, core.NilHandle(kind, "clear expire")
	}
	const op = "clear expire"
	if err := m.base.Check(ctx, op); err != nil {
		return false, err
	}
	n := m.k
	reply, err := m.eval(ctx, clearExpireScript, true, m.keyList(n.timeout, n.idle, n.lastAccess, n.options))
	return m.flag(ctx, op, reply, err)
}

// RemainTTL returns the map's remaining time to live (PTTL of its hash),
// with go-redis' conventions: -2 (nanoseconds) when the map does not
// exist, -1 when it has no expiry.
func (m *MapCache[K, V]) RemainTTL(ctx context.Context) (time.Duration, error) {
	if m == nil {
		return 0, core.NilHandle(kind, "remain ttl")
	}
	const op = "remain ttl"
	if err := m.base.Check(ctx, op); err != nil {
		return 0, err
	}
	d, err := objbase.Bounded(ctx, m.base.Runtime(), func(ctx context.Context) (time.Duration, error) {
		return m.base.Redis().PTTL(ctx, m.base.Name()).Result()
	})
	if err != nil {
		return 0, m.base.Fail(ctx, op, err)
	}
	return d, nil
}

// Delete deletes the map, its sorted sets and its options and reports
// whether any existed (Redisson's delete), and stops the client's clean-up
// of the name; a MapCache made afterwards starts it again.
func (m *MapCache[K, V]) Delete(ctx context.Context) (bool, error) {
	if m == nil {
		return false, core.NilHandle(kind, "delete")
	}
	const op = "delete"
	if err := m.base.Check(ctx, op); err != nil {
		return false, err
	}
	n := m.k
	count, err := objbase.Bounded(ctx, m.base.Runtime(), func(ctx context.Context) (int64, error) {
		return m.base.Redis().Del(ctx, m.base.Name(), n.timeout, n.idle, n.lastAccess, n.options).Result()
	})
	if err != nil {
		return false, m.base.Fail(ctx, op, err)
	}
	m.base.Runtime().Eviction().Remove(m.base.Name())
	return count > 0, nil
}

// evictTask is the clean-up of the map: Redisson's MapCacheEvictionTask
// script, which takes the run-once latch (latch is how long it holds it),
// deletes up to limit expired entries of each kind (TTL, max idle) and
// publishes each on the expired channel.
func (m *MapCache[K, V]) evictTask() eviction.Task {
	n := m.k
	keys := []string{m.base.Name(), n.timeout, n.idle, n.expired, n.lastAccess, n.latch}
	return func(ctx context.Context, limit int, latch time.Duration) (int, error) {
		reply, err := m.eval(ctx, evictScript, true, keys,
			now(), limit, int64(latch/time.Second), 1, m.base.Runtime().PublishCommand())
		if err != nil {
			return 0, err
		}
		count, ok := reply.(int64)
		if !ok {
			return 0, fmt.Errorf("unexpected reply %v", reply)
		}
		return int(count), nil
	}
}
