package collection

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"reflect"
	"strings"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson/codec"
	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/internal/javanum"
	"github.com/goredisson/redisson/internal/lua"
	"github.com/goredisson/redisson/internal/objbase"
	"github.com/goredisson/redisson/source"
)

// Redisson's map scripts, as its RedissonMap sends them (the records'
// collections.map_string and map_json).
var (
	mapPutScript         = core.NewScript("map put", lua.MustText(luaFiles, "lua/map_put.lua"))
	mapPutIfAbsentScript = core.NewScript("map put if absent", lua.MustText(luaFiles, "lua/map_put_if_absent.lua"))
	mapRemoveScript      = core.NewScript("map remove", lua.MustText(luaFiles, "lua/map_remove.lua"))
)

// Map is Redisson's RMap<K, V>: a hash under the key name whose fields are
// the encoded keys and whose values are the encoded values. Keys and values
// are encoded with the map's codec (Redisson's map key and map value
// encoders are the value encoder for every portable codec); WithKeyCodec
// sets another for the keys, as a Java CompositeCodec does.
//
// Java's null is refused as a key or a value (a nil pointer, interface,
// map or slice), as Redisson refuses it; a missing key reads as (zero V,
// false).
type Map[K comparable, V any] struct {
	object
	keys, values codec.Codec
}

// Entry is one key and value of a Map.
type Entry[K, V any] struct {
	Key   K
	Value V
}

// MapOption configures a Map at construction.
type MapOption func(*mapOptions)

type mapOptions struct {
	keys codec.Codec
}

// WithKeyCodec encodes the map's keys with c instead of the map's codec:
// what a Java map with new CompositeCodec(keyCodec, valueCodec) stores, for
// example StringCodec keys and JsonJacksonCodec values.
func WithKeyCodec(c codec.Codec) MapOption { return func(o *mapOptions) { o.keys = c } }

// NewMap returns the map called name, its keys and values encoded with cd
// (Redisson's getMap(name, codec)). Package redisson's NewMap passes the
// client's Source (client.Source()). An empty name, a nil source or a nil codec gives a
// handle whose every call fails (ErrInvalidName, ErrInvalidArgument).
func NewMap[K comparable, V any](src *source.Source, name string, cd codec.Codec, opts ...MapOption) *Map[K, V] {
	mo := mapOptions{keys: cd}
	withKeys := false
	for _, opt := range opts {
		if opt != nil {
			opt(&mo)
			withKeys = true
		}
	}
	m := &Map[K, V]{object: newObject("map", "hash", src, name, cd), keys: mo.keys, values: cd}
	if withKeys {
		m.base.NeedCodec(mo.keys, "key codec")
	}
	return m
}

// Name returns the map's name, which is also its key.
func (m *Map[K, V]) Name() string {
	if m == nil {
		return *new(string)
	}
	return m.base.Name()
}

func (m *Map[K, V]) keyEncoder(op string) *encoder {
	return &encoder{o: &m.object, op: op, cd: m.keys}
}

func (m *Map[K, V]) valueEncoder(op string) *encoder {
	return &encoder{o: &m.object, op: op, cd: m.values}
}

// value decodes a reply that holds a value, or none.
func (m *Map[K, V]) value(ctx context.Context, op string, reply any) (V, bool, error) {
	var zero V
	data, ok := bulk(reply)
	if !ok {
		return zero, false, nil
	}
	v, err := decode[V](m.values, data)
	if err != nil {
		return zero, false, m.base.Fail(ctx, op, err)
	}
	return v, true, nil
}

// Get returns the value of key, and false when the map has none (HGET).
func (m *Map[K, V]) Get(ctx context.Context, key K) (V, bool, error) {
	if m == nil {
		return *new(V), false, core.NilHandle("map", "get")
	}
	const op = "get"
	var zero V
	if err := m.base.Check(ctx, op); err != nil {
		return zero, false, err
	}
	e := m.keyEncoder(op)
	k := e.enc("key", key)
	if e.err != nil {
		return zero, false, e.err
	}
	cmd, err := m.read(ctx, "hget", m.base.Name(), k)
	if err != nil {
		return zero, false, m.base.Fail(ctx, op, err)
	}
	return m.value(ctx, op, cmd.Val())
}

// kv encodes a key and a value, both before anything is sent.
func (m *Map[K, V]) kv(op string, key K, v V) ([]byte, []byte, error) {
	ke := m.keyEncoder(op)
	k := ke.enc("key", key)
	if ke.err != nil {
		return nil, nil, ke.err
	}
	ve := m.valueEncoder(op)
	data := ve.enc("value", v)
	return k, data, ve.err
}

// Put stores v under key and returns the previous value, and whether there
// was one (Redisson's put: a script of HGET and HSET).
func (m *Map[K, V]) Put(ctx context.Context, key K, v V) (V, bool, error) {
	if m == nil {
		return *new(V), false, core.NilHandle("map", "put")
	}
	return m.putScript(ctx, "put", mapPutScript, key, v)
}

// PutIfAbsent stores v under key when the map has no value for it. It
// returns the value already there and true when there was one (nothing was
// stored), or false when v was stored (Redisson's putIfAbsent: HSETNX, and
// HGET when it was present).
func (m *Map[K, V]) PutIfAbsent(ctx context.Context, key K, v V) (V, bool, error) {
	if m == nil {
		return *new(V), false, core.NilHandle("map", "put if absent")
	}
	return m.putScript(ctx, "put if absent", mapPutIfAbsentScript, key, v)
}

func (m *Map[K, V]) putScript(ctx context.Context, op string, s *core.Script, key K, v V) (V, bool, error) {
	var zero V
	if err := m.base.Check(ctx, op); err != nil {
		return zero, false, err
	}
	k, data, err := m.kv(op, key, v)
	if err != nil {
		return zero, false, err
	}
	reply, err := m.eval(ctx, s, true, k, data)
	if err != nil {
		return zero, false, m.base.Fail(ctx, op, err)
	}
	return m.value(ctx, op, reply)
}

// FastPut stores v under key and reports whether the key is new (HSET), as
// Redisson's fastPut: it does not read the previous value.
func (m *Map[K, V]) FastPut(ctx context.Context, key K, v V) (bool, error) {
	if m == nil {
		return false, core.NilHandle("map", "fast put")
	}
	return m.fastPut(ctx, "fast put", "hset", key, v)
}

// FastPutIfAbsent stores v under key when the map has no value for it and
// reports whether it did (HSETNX), as Redisson's fastPutIfAbsent.
func (m *Map[K, V]) FastPutIfAbsent(ctx context.Context, key K, v V) (bool, error) {
	if m == nil {
		return false, core.NilHandle("map", "fast put if absent")
	}
	return m.fastPut(ctx, "fast put if absent", "hsetnx", key, v)
}

func (m *Map[K, V]) fastPut(ctx context.Context, op, command string, key K, v V) (bool, error) {
	if err := m.base.Check(ctx, op); err != nil {
		return false, err
	}
	k, data, err := m.kv(op, key, v)
	if err != nil {
		return false, err
	}
	cmd, err := m.write(ctx, command, m.base.Name(), k, data)
	if err != nil {
		return false, m.base.Fail(ctx, op, err)
	}
	n, err := cmd.Int64()
	if err != nil {
		return false, m.base.Fail(ctx, op, err)
	}
	return n == 1, nil
}

// Remove deletes key and returns its value, and whether there was one
// (Redisson's remove: a script of HGET and HDEL).
func (m *Map[K, V]) Remove(ctx context.Context, key K) (V, bool, error) {
	if m == nil {
		return *new(V), false, core.NilHandle("map", "remove")
	}
	const op = "remove"
	var zero V
	if err := m.base.Check(ctx, op); err != nil {
		return zero, false, err
	}
	e := m.keyEncoder(op)
	k := e.enc("key", key)
	if e.err != nil {
		return zero, false, e.err
	}
	reply, err := m.eval(ctx, mapRemoveScript, true, k)
	if err != nil {
		return zero, false, m.base.Fail(ctx, op, err)
	}
	return m.value(ctx, op, reply)
}

// FastRemove deletes keys and returns how many the map had (HDEL), as
// Redisson's fastRemove. No keys: nothing is sent, 0.
func (m *Map[K, V]) FastRemove(ctx context.Context, keys ...K) (int64, error) {
	if m == nil {
		return *new(int64), core.NilHandle("map", "fast remove")
	}
	const op = "fast remove"
	if err := m.base.Check(ctx, op); err != nil {
		return 0, err
	}
	if len(keys) == 0 {
		return 0, nil
	}
	e := m.keyEncoder(op)
	args := []any{"hdel", m.base.Name()}
	for _, key := range keys {
		args = append(args, e.enc("key", key))
	}
	if e.err != nil {
		return 0, e.err
	}
	cmd, err := m.write(ctx, args...)
	if err != nil {
		return 0, m.base.Fail(ctx, op, err)
	}
	n, err := cmd.Int64()
	if err != nil {
		return 0, m.base.Fail(ctx, op, err)
	}
	return n, nil
}

// ContainsKey reports whether the map has a value for key (HEXISTS).
func (m *Map[K, V]) ContainsKey(ctx context.Context, key K) (bool, error) {
	if m == nil {
		return false, core.NilHandle("map", "contains key")
	}
	const op = "contains key"
	if err := m.base.Check(ctx, op); err != nil {
		return false, err
	}
	e := m.keyEncoder(op)
	k := e.enc("key", key)
	if e.err != nil {
		return false, e.err
	}
	cmd, err := m.read(ctx, "hexists", m.base.Name(), k)
	if err != nil {
		return false, m.base.Fail(ctx, op, err)
	}
	ok, err := cmd.Bool()
	if err != nil {
		return false, m.base.Fail(ctx, op, err)
	}
	return ok, nil
}

// GetAll returns the values of keys the map has, missing keys left out
// (HMGET), as Redisson's getAll. No keys: nothing is sent, an empty map.
func (m *Map[K, V]) GetAll(ctx context.Context, keys ...K) (map[K]V, error) {
	if m == nil {
		return *new(map[K]V), core.NilHandle("map", "get all")
	}
	const op = "get all"
	if err := m.base.Check(ctx, op); err != nil {
		return nil, err
	}
	out := make(map[K]V, len(keys))
	if len(keys) == 0 {
		return out, nil
	}
	e := m.keyEncoder(op)
	args := []any{"hmget", m.base.Name()}
	for _, key := range keys {
		args = append(args, e.enc("key", key))
	}
	if e.err != nil {
		return nil, e.err
	}
	cmd, err := m.read(ctx, args...)
	if err != nil {
		return nil, m.base.Fail(ctx, op, err)
	}
	vals, err := cmd.Slice()
	if err == nil && len(vals) != len(keys) {
		err = fmt.Errorf("HMGET answered %d values for %d keys", len(vals), len(keys))
	}
	if err != nil {
		return nil, m.base.Fail(ctx, op, err)
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

// PutAll stores every entry of entries (HMSET), as Redisson's putAll; every
// key and value is encoded before anything is sent. No entries: nothing is
// sent.
func (m *Map[K, V]) PutAll(ctx context.Context, entries map[K]V) error {
	if m == nil {
		return core.NilHandle("map", "put all")
	}
	const op = "put all"
	if err := m.base.Check(ctx, op); err != nil {
		return err
	}
	if len(entries) == 0 {
		return nil
	}
	ke, ve := m.keyEncoder(op), m.valueEncoder(op)
	args := make([]any, 0, 2+2*len(entries))
	args = append(args, "hmset", m.base.Name())
	for k, v := range entries {
		args = append(args, ke.enc("key", k), ve.enc("value", v))
		if ke.err != nil {
			return ke.err
		}
		if ve.err != nil {
			return ve.err
		}
	}
	_, err := m.write(ctx, args...)
	return m.base.Fail(ctx, op, err)
}

// Size returns the number of entries (HLEN).
func (m *Map[K, V]) Size(ctx context.Context) (int64, error) {
	if m == nil {
		return *new(int64), core.NilHandle("map", "size")
	}
	return m.size(ctx, "hlen")
}

// Delete deletes the map and reports whether it existed (DEL).
func (m *Map[K, V]) Delete(ctx context.Context) (bool, error) {
	if m == nil {
		return false, core.NilHandle("map", "delete")
	}
	return m.delete(ctx)
}

// AddAndGet adds delta to the number stored under key and returns the new
// value, as Redisson's addAndGet: HINCRBYFLOAT with the delta as Java's
// BigDecimal prints it (5, 0.5; a float64 as a Java Double: 5.0), the key
// encoded with the key codec; a missing key counts as 0. V must be a
// number type, a string type (codec.Decimal, or numbers kept as text with
// codec.String) or an interface holding one of those (the result has
// delta's dynamic type, as Java's result has the delta's class).
//
// The stored value is Redis' decimal text, not the codec's encoding: it
// reads back as a number with codec.String, codec.Long (integers) and
// JsonJackson (an Integer or a Double), but a value JsonJackson wrote as a
// Java Long (["java.lang.Long",10]) is not a number to Redis, so adding to
// it fails with ErrWrongType and changes nothing, as in Java. An integer V
// whose new value has a fraction gets an error wrapping codec.ErrDecode,
// after the value was stored (Java throws the same way).
func (m *Map[K, V]) AddAndGet(ctx context.Context, key K, delta V) (V, error) {
	if m == nil {
		return *new(V), core.NilHandle("map", "add and get")
	}
	const op = "add and get"
	var zero V
	if err := m.base.Check(ctx, op); err != nil {
		return zero, err
	}
	like := reflect.TypeFor[V]()
	if like.Kind() == reflect.Interface {
		if objbase.IsNull(delta) {
			return zero, m.base.Invalid(op, "the delta must not be nil")
		}
		like = reflect.TypeOf(delta)
	}
	if !javanum.Numeric(like) || !like.AssignableTo(reflect.TypeFor[V]()) {
		return zero, m.base.Invalid(op, "the value type %s is not a number", like)
	}
	d, err := javanum.DeltaText(delta)
	if err != nil {
		return zero, m.base.Invalid(op, "%v", err)
	}
	e := m.keyEncoder(op)
	k := e.enc("key", key)
	if e.err != nil {
		return zero, e.err
	}
	cmd, err := m.write(ctx, "hincrbyfloat", m.base.Name(), k, d)
	if err != nil {
		var re redis.Error
		if errors.As(err, &re) && strings.Contains(re.Error(), "not a float") {
			err = core.Errorf(core.ErrWrongType, "the value is not a number Redis can add to: %v", err)
		}
		return zero, m.base.Fail(ctx, op, err)
	}
	text, err := cmd.Text()
	if err != nil {
		return zero, m.base.Fail(ctx, op, err)
	}
	rv, err := javanum.NumberResult(text, like)
	if err != nil {
		return zero, m.base.Fail(ctx, op, err)
	}
	return rv.Interface().(V), nil
}

// ReadAll returns every entry in one command (HGETALL), as Redisson's
// readAllMap. For a map that may be large, iterate with Entries.
func (m *Map[K, V]) ReadAll(ctx context.Context) (map[K]V, error) {
	if m == nil {
		return *new(map[K]V), core.NilHandle("map", "read all")
	}
	const op = "read all"
	if err := m.base.Check(ctx, op); err != nil {
		return nil, err
	}
	var all map[string]string
	_, err := objbase.Bounded(ctx, m.base.Runtime(), func(ctx context.Context) (struct{}, error) {
		var err error
		all, err = m.base.Redis().HGetAll(ctx, m.base.Name()).Result()
		return struct{}{}, err
	})
	if err != nil {
		return nil, m.base.Fail(ctx, op, err)
	}
	out := make(map[K]V, len(all))
	for ks, vs := range all {
		e, err := m.entry(ks, vs)
		if err != nil {
			return nil, m.base.Fail(ctx, op, err)
		}
		out[e.Key] = e.Value
	}
	return out, nil
}

func (m *Map[K, V]) entry(k, v string) (Entry[K, V], error) {
	key, err := decode[K](m.keys, k)
	if err != nil {
		return Entry[K, V]{}, fmt.Errorf("key %.40q: %w", k, err)
	}
	val, err := decode[V](m.values, v)
	if err != nil {
		return Entry[K, V]{}, fmt.Errorf("value of key %.40q: %w", k, err)
	}
	return Entry[K, V]{key, val}, nil
}

// Entries iterates over the map's entries with HSCAN, a page at a time
// (see the package doc, Iteration): each pair is an entry and nil, or, last,
// a zero entry and the error that ended the iteration. Options:
// WithPageSize, WithMatch (on the encoded keys).
func (m *Map[K, V]) Entries(ctx context.Context, opts ...ScanOption) iter.Seq2[Entry[K, V], error] {
	if m == nil {
		return core.NilSeq2[Entry[K, V]]("map", "entries")
	}
	return m.entries(ctx, "iterate entries", opts, true, true)
}

// Keys iterates over the map's keys with HSCAN, as Entries does; values
// are not decoded.
func (m *Map[K, V]) Keys(ctx context.Context, opts ...ScanOption) iter.Seq2[K, error] {
	if m == nil {
		return core.NilSeq2[K]("map", "keys")
	}
	return func(yield func(K, error) bool) {
		for e, err := range m.entries(ctx, "iterate keys", opts, true, false) {
			if !yield(e.Key, err) || err != nil {
				return
			}
		}
	}
}

// Values iterates over the map's values with HSCAN, as Entries does; keys
// are not decoded.
func (m *Map[K, V]) Values(ctx context.Context, opts ...ScanOption) iter.Seq2[V, error] {
	if m == nil {
		return core.NilSeq2[V]("map", "values")
	}
	return func(yield func(V, error) bool) {
		for e, err := range m.entries(ctx, "iterate values", opts, false, true) {
			if !yield(e.Value, err) || err != nil {
				return
			}
		}
	}
}

func (m *Map[K, V]) entries(ctx context.Context, op string, opts []ScanOption, keys, values bool) iter.Seq2[Entry[K, V], error] {
	return func(yield func(Entry[K, V], error) bool) {
		so, err := m.scanOptions(op, opts, false)
		if err != nil {
			yield(Entry[K, V]{}, err)
			return
		}
		m.scan(ctx, op, "hscan", so, func(items []any) bool {
			for i := 0; i+1 < len(items); i += 2 {
				if err := m.base.Check(ctx, op); err != nil {
					yield(Entry[K, V]{}, err)
					return false
				}
				k, _ := bulk(items[i])
				v, _ := bulk(items[i+1])
				var e Entry[K, V]
				var err error
				if keys {
					if e.Key, err = decode[K](m.keys, k); err != nil {
						err = fmt.Errorf("key %.40q: %w", k, err)
					}
				}
				if values && err == nil {
					if e.Value, err = decode[V](m.values, v); err != nil {
						err = fmt.Errorf("value of key %.40q: %w", k, err)
					}
				}
				if err != nil {
					yield(Entry[K, V]{}, m.base.Fail(ctx, op, err))
					return false
				}
				if !yield(e, nil) {
					return false
				}
			}
			return true
		}, func(err error) { yield(Entry[K, V]{}, err) })
	}
}
