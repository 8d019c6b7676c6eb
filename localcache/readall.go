package localcache

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/internal/javanum"
)

// ReadAll returns every entry of the map (Redisson's readAllMap): the
// near cache's entries, and the others in one script that reads the hash
// and leaves out the keys this instance has cached; what it read is
// cached. StoreLocalCache: the near cache's entries.
func (m *LocalCachedMap[K, V]) ReadAll(ctx context.Context) (map[K]V, error) {
	if m == nil {
		return nil, core.NilHandle(kind, "read all")
	}
	const op = "read all"
	if err := m.begin(ctx, op); err != nil {
		return nil, err
	}
	out := map[K]V{}
	var skip []any
	if !m.down.Load() {
		for _, e := range m.store.snapshot() {
			out[e.key] = e.val
			if m.opts.StoreMode == StoreLocalCacheRedis {
				k, err := m.encodeKey(op, e.key)
				if err != nil {
					return nil, err
				}
				skip = append(skip, k)
			}
		}
	}
	if m.opts.StoreMode == StoreLocalCache {
		return out, nil
	}
	// What was read is cached only if nothing about its key changed
	// since it was read: the counters before the read.
	before := mark{gen: m.gen.Load()}
	var epochs [stripes]uint64
	for i := range epochs {
		epochs[i] = m.epochs[i].Load()
	}
	reply, err := readAllScript.Run(ctx, m.rt.Redis(), []string{m.name}, skip...)
	if err != nil && !errors.Is(err, redis.Nil) {
		return nil, m.fail(ctx, op, err)
	}
	flat, _ := reply.([]any)
	for i := 0; i+1 < len(flat); i += 2 {
		ks, _ := flat[i].(string)
		vs, _ := flat[i+1].(string)
		var key K
		var v V
		if err := m.keys.Decode([]byte(ks), &key); err != nil {
			return nil, m.named(op, err)
		}
		if err := m.values.Decode([]byte(vs), &v); err != nil {
			return nil, m.named(op, err)
		}
		out[key] = v
		if hashable(any(key)) {
			h := keyHash([]byte(ks))
			m.fill(key, h, v, mark{before.gen, epochs[h[0]%stripes]})
		}
	}
	return out, nil
}

// AddAndGet adds delta to the number stored under key (a missing key
// counts as 0) and returns the sum, as Redisson's addAndGet: HINCRBYFLOAT
// in its script, which also publishes an invalidation of key whatever the
// sync strategy; the near cache then holds the sum. V (or, for an
// interface V, the delta's type) must be an integer, float or string type;
// the stored text is Redis' decimal, which codec.String, codec.Long and
// JsonJackson read back as a number. An integer V whose new value has a
// fraction gets an error wrapping codec.ErrDecode after the value was
// stored, as Java throws. Redisson runs the script in StoreLocalCache mode
// too, and so does this.
func (m *LocalCachedMap[K, V]) AddAndGet(ctx context.Context, key K, delta V) (V, error) {
	var zero V
	if m == nil {
		return zero, core.NilHandle(kind, "add and get")
	}
	const op = "add and get"
	if err := m.begin(ctx, op); err != nil {
		return zero, err
	}
	like := reflect.TypeFor[V]()
	if like.Kind() == reflect.Interface && !isNull(delta) {
		like = reflect.TypeOf(delta)
	}
	d, err := deltaOf(delta, like)
	if err != nil {
		return zero, m.named(op, fmt.Errorf("%w: %v", core.ErrInvalidArgument, err))
	}
	if err := m.checkKey(op, key); err != nil {
		return zero, err
	}
	k, err := m.encodeKey(op, key)
	if err != nil {
		return zero, err
	}
	w := written[K]{key: key, k: k, h: keyHash(k)}
	w.mk = m.mark(w.h)
	args := append([]any{k, d, m.opts.onChange(), encodeInvalidate(m.id, w.h)}, m.logTail(w.h)...)
	reply, err := m.run(ctx, op, addAndGetScript, w, args...)
	if err != nil {
		var re redis.Error
		if errors.As(err, &re) && strings.Contains(re.Error(), "not a float") {
			err = m.named(op, fmt.Errorf("%w: the value is not a number Redis can add to: %v", core.ErrWrongType, re))
		}
		return zero, err
	}
	text, _ := reply.(string)
	rv, err := javanum.NumberResult(text, like)
	if err != nil {
		m.forget(key, w.h)
		return zero, m.named(op, err)
	}
	sum := rv.Interface().(V)
	m.fill(key, w.h, sum, w.mk)
	return sum, nil
}

// deltaOf is the text Redisson sends for delta, whose type must be like
// (the map's value type, or the delta's own under an interface V).
func deltaOf(delta any, like reflect.Type) (string, error) {
	switch {
	case delta == nil:
		return "", errors.New("the delta must not be nil")
	case !reflect.TypeOf(delta).AssignableTo(like):
		return "", fmt.Errorf("the delta's type %T is not %s", delta, like)
	case !javanum.Numeric(like):
		return "", fmt.Errorf("the value type %s is not a number", like)
	}
	return javanum.DeltaText(delta)
}
