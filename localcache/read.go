package localcache

import (
	"context"
	"errors"
	"fmt"
	"iter"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson/internal/conns"
	"github.com/goredisson/redisson/internal/core"
)

// begin checks a call and makes sure the map listens to its topic.
func (m *LocalCachedMap[K, V]) begin(ctx context.Context, op string) error {
	if err := m.check(ctx, op); err != nil {
		return err
	}
	return m.ensure(ctx, op)
}

// checkKey refuses a key the near cache cannot look up (an interface key
// holding nil or an unhashable value) before it is looked up.
func (m *LocalCachedMap[K, V]) checkKey(op string, key K) error {
	if m.ifaceKey && !hashable(key) {
		if isNull(key) {
			return m.named(op, fmt.Errorf("%w: the key must not be nil (Redisson refuses null)", core.ErrInvalidArgument))
		}
		return m.named(op, fmt.Errorf("%w: the key's type %T is not comparable", core.ErrInvalidArgument, key))
	}
	return nil
}

// Get returns the value of key: from the near cache when it has it
// (nothing is sent, nothing allocated), else from Redis (HGET), caching
// it. A missing key reads as (zero V, false) and is not cached (Redisson
// caches no null). In StoreLocalCache mode only the near cache is read.
func (m *LocalCachedMap[K, V]) Get(ctx context.Context, key K) (V, bool, error) {
	var zero V
	if m == nil {
		return zero, false, core.NilHandle(kind, "get")
	}
	const op = "get"
	if err := m.begin(ctx, op); err != nil {
		return zero, false, err
	}
	if err := m.checkKey(op, key); err != nil {
		return zero, false, err
	}
	if v, ok := m.cached(key); ok {
		return v, true, nil
	}
	if m.opts.StoreMode == StoreLocalCache {
		return zero, false, nil
	}
	k, err := m.encodeKey(op, key)
	if err != nil {
		return zero, false, err
	}
	h := keyHash(k)
	mk := m.mark(h)
	cmd, err := m.send(ctx, true, "hget", m.name, k)
	if err != nil {
		return zero, false, m.fail(ctx, op, err)
	}
	data, ok := cmd.Val().(string)
	if !ok {
		return zero, false, nil
	}
	var v V
	if err := m.values.Decode([]byte(data), &v); err != nil {
		return zero, false, m.named(op, err)
	}
	m.fill(key, h, v, mk)
	return v, true, nil
}

// GetAll returns the values of the keys the map has, missing keys left
// out: the near cache's, and the rest in one HMGET (cached), as
// Redisson's getAll. No keys: nothing is sent, an empty map.
func (m *LocalCachedMap[K, V]) GetAll(ctx context.Context, keys ...K) (map[K]V, error) {
	if m == nil {
		return nil, core.NilHandle(kind, "get all")
	}
	const op = "get all"
	if err := m.begin(ctx, op); err != nil {
		return nil, err
	}
	out := make(map[K]V, len(keys))
	var missed []K
	for _, key := range keys {
		if err := m.checkKey(op, key); err != nil {
			return nil, err
		}
		if v, ok := m.cached(key); ok {
			out[key] = v
		} else if m.opts.StoreMode == StoreLocalCacheRedis {
			missed = append(missed, key)
		}
	}
	if len(missed) == 0 {
		return out, nil
	}
	args := []any{"hmget", m.name}
	hashes := make([]hash, len(missed))
	marks := make([]mark, len(missed))
	for i, key := range missed {
		k, err := m.encodeKey(op, key)
		if err != nil {
			return nil, err
		}
		hashes[i] = keyHash(k)
		marks[i] = m.mark(hashes[i])
		args = append(args, k)
	}
	cmd, err := m.send(ctx, true, args...)
	if err != nil {
		return nil, m.fail(ctx, op, err)
	}
	vals, err := cmd.Slice()
	if err == nil && len(vals) != len(missed) {
		err = fmt.Errorf("HMGET answered %d values for %d keys", len(vals), len(missed))
	}
	if err != nil {
		return nil, m.fail(ctx, op, err)
	}
	for i, raw := range vals {
		data, ok := raw.(string)
		if !ok {
			continue
		}
		var v V
		if err := m.values.Decode([]byte(data), &v); err != nil {
			return nil, m.named(op, err)
		}
		out[missed[i]] = v
		m.fill(missed[i], hashes[i], v, marks[i])
	}
	return out, nil
}

// ContainsKey reports whether the map has a value for key: true at once
// when the near cache has it, else HEXISTS (StoreLocalCache: the near
// cache only).
func (m *LocalCachedMap[K, V]) ContainsKey(ctx context.Context, key K) (bool, error) {
	if m == nil {
		return false, core.NilHandle(kind, "contains key")
	}
	const op = "contains key"
	if err := m.begin(ctx, op); err != nil {
		return false, err
	}
	if err := m.checkKey(op, key); err != nil {
		return false, err
	}
	if !m.down.Load() {
		if _, ok := m.store.peek(key); ok {
			return true, nil
		}
	}
	if m.opts.StoreMode == StoreLocalCache {
		return false, nil
	}
	k, err := m.encodeKey(op, key)
	if err != nil {
		return false, err
	}
	cmd, err := m.send(ctx, true, "hexists", m.name, k)
	if err != nil {
		return false, m.fail(ctx, op, err)
	}
	n, err := cmd.Int64()
	if err != nil {
		return false, m.fail(ctx, op, err)
	}
	return n == 1, nil
}

// Size returns the number of entries (HLEN; StoreLocalCache: the near
// cache's).
func (m *LocalCachedMap[K, V]) Size(ctx context.Context) (int64, error) {
	if m == nil {
		return 0, core.NilHandle(kind, "size")
	}
	const op = "size"
	if err := m.begin(ctx, op); err != nil {
		return 0, err
	}
	if m.opts.StoreMode == StoreLocalCache {
		return int64(m.store.size()), nil
	}
	cmd, err := m.send(ctx, true, "hlen", m.name)
	if err != nil {
		return 0, m.fail(ctx, op, err)
	}
	n, err := cmd.Int64()
	if err != nil {
		return 0, m.fail(ctx, op, err)
	}
	return n, nil
}

// Entry is one key and value of the map.
type Entry[K, V any] struct {
	Key   K
	Value V
}

// Entries iterates over the map's entries in Redis with HSCAN, ten a page
// (Redisson's default), as package collection's Map does: each pair is an
// entry and nil, or, last, a zero entry and the error that ended it. The
// near cache is neither read nor filled. StoreLocalCache: the near
// cache's entries.
func (m *LocalCachedMap[K, V]) Entries(ctx context.Context) iter.Seq2[Entry[K, V], error] {
	if m == nil {
		return core.NilSeq2[Entry[K, V]](kind, "entries")
	}
	return m.entries(ctx, "iterate entries", true)
}

// Keys iterates over the map's keys, as Entries does; values are not
// decoded.
func (m *LocalCachedMap[K, V]) Keys(ctx context.Context) iter.Seq2[K, error] {
	if m == nil {
		return core.NilSeq2[K](kind, "keys")
	}
	return func(yield func(K, error) bool) {
		for e, err := range m.entries(ctx, "iterate keys", false) {
			if !yield(e.Key, err) || err != nil {
				return
			}
		}
	}
}

func (m *LocalCachedMap[K, V]) entries(ctx context.Context, op string, values bool) iter.Seq2[Entry[K, V], error] {
	return func(yield func(Entry[K, V], error) bool) {
		if err := m.begin(ctx, op); err != nil {
			yield(Entry[K, V]{}, err)
			return
		}
		if m.opts.StoreMode == StoreLocalCache {
			for _, e := range m.store.snapshot() {
				if err := m.check(ctx, op); err != nil {
					yield(Entry[K, V]{}, err)
					return
				}
				if !yield(Entry[K, V]{e.key, e.val}, nil) {
					return
				}
			}
			return
		}
		m.scan(ctx, op, values, yield)
	}
}

// scan walks the hash with HSCAN ... COUNT 10 and yields its entries.
func (m *LocalCachedMap[K, V]) scan(ctx context.Context, op string, values bool, yield func(Entry[K, V], error) bool) {
	cursor := "0"
	for {
		if err := m.check(ctx, op); err != nil {
			yield(Entry[K, V]{}, err)
			return
		}
		cmd, err := m.send(ctx, true, "hscan", m.name, cursor, "COUNT", 10)
		if err != nil {
			yield(Entry[K, V]{}, m.fail(ctx, op, err))
			return
		}
		reply, _ := cmd.Val().([]any)
		var items []any
		if len(reply) == 2 {
			items, _ = reply[1].([]any)
		}
		if len(reply) != 2 || items == nil && reply[1] != nil {
			yield(Entry[K, V]{}, m.named(op, fmt.Errorf("unexpected HSCAN reply %v", cmd.Val())))
			return
		}
		for i := 0; i+1 < len(items); i += 2 {
			k, _ := items[i].(string)
			v, _ := items[i+1].(string)
			var e Entry[K, V]
			err := m.keys.Decode([]byte(k), &e.Key)
			if err == nil && values {
				err = m.values.Decode([]byte(v), &e.Value)
			}
			if err != nil {
				yield(Entry[K, V]{}, m.named(op, fmt.Errorf("entry %.40q: %w", k, err)))
				return
			}
			if !yield(e, nil) {
				return
			}
		}
		next, _ := reply[0].(string)
		if next == "0" || next == "" {
			return
		}
		cursor = next
	}
}

// noRetryCmd is a command go-redis must not send twice when its reply is
// lost.
type noRetryCmd struct{ *redis.Cmd }

func (noRetryCmd) NoRetry() bool { return true }

// send sends one command bounded by ctx (see conns.Bounded); a write
// (retry false) at most once. A nil reply is no error.
func (m *LocalCachedMap[K, V]) send(ctx context.Context, retry bool, args ...any) (*redis.Cmd, error) {
	call := func(ctx context.Context) (*redis.Cmd, error) {
		cmd := redis.NewCmd(ctx, args...)
		cmd.SetFirstKeyPos(1)
		var c redis.Cmder = cmd
		if !retry {
			c = noRetryCmd{cmd}
		}
		err := m.rt.Redis().Process(ctx, c)
		if errors.Is(err, redis.Nil) {
			err = nil
		}
		return cmd, err
	}
	if !m.rt.Conns().NeedsBound(ctx) {
		return call(ctx)
	}
	return conns.Bounded(ctx, call)
}

// eval runs a write script at most once, bounded by ctx.
func (m *LocalCachedMap[K, V]) eval(ctx context.Context, s *core.Script, keys []string, args ...any) (any, error) {
	call := func(ctx context.Context) (any, error) {
		v, err := s.RunNoRetry(ctx, m.rt.Redis(), keys, args...)
		if errors.Is(err, redis.Nil) {
			err = nil
		}
		return v, err
	}
	if !m.rt.Conns().NeedsBound(ctx) {
		return call(ctx)
	}
	return conns.Bounded(ctx, call)
}

// fail names the map and op in err; WRONGTYPE becomes ErrWrongType saying
// what the key holds.
func (m *LocalCachedMap[K, V]) fail(ctx context.Context, op string, err error) error {
	if err == nil {
		return nil
	}
	var re redis.Error
	if err == core.ErrWrongType || errors.As(err, &re) && len(re.Error()) >= 9 && re.Error()[:9] == "WRONGTYPE" {
		err = core.WrongTypeError(ctx, m.rt.Redis(), m.name, "hash")
	}
	return m.named(op, err)
}
