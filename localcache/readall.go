package localcache

import (
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson/codec"
	"github.com/goredisson/redisson/internal/core"
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
	d, err := deltaText(delta, like)
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
	rv, err := numberResult(text, like)
	if err != nil {
		m.forget(key, w.h)
		return zero, m.named(op, err)
	}
	sum := rv.Interface().(V)
	m.fill(key, w.h, sum, w.mk)
	return sum, nil
}

// plainDecimal is the text a string delta may have.
var plainDecimal = regexp.MustCompile(`^-?[0-9]+(\.[0-9]+)?$`)

// deltaText is the text Redisson sends for a delta (BigDecimal's plain
// string of the Number): an integer as it is, a float as Java's Double
// (Float) prints it without an exponent, a string when it is a plain
// decimal. like is the type the sum is returned as.
func deltaText(delta any, like reflect.Type) (string, error) {
	rv := reflect.ValueOf(delta)
	if !rv.IsValid() {
		return "", errors.New("the delta must not be nil")
	}
	if !rv.Type().AssignableTo(like) {
		return "", fmt.Errorf("the delta's type %T is not %s", delta, like)
	}
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(rv.Int(), 10), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return strconv.FormatUint(rv.Uint(), 10), nil
	case reflect.Float32, reflect.Float64:
		f := rv.Float()
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return "", fmt.Errorf("the delta %v is not a finite number", f)
		}
		return javaPlain(f, rv.Type().Bits()), nil
	case reflect.String:
		if s := rv.String(); plainDecimal.MatchString(s) {
			return s, nil
		}
		return "", fmt.Errorf("the delta %q is not a plain decimal number", rv.String())
	}
	return "", fmt.Errorf("the value type %s is not a number", rv.Type())
}

// javaPlain is BigDecimal.valueOf(f).toPlainString(): Java's shortest
// digits of the double (or float, bits 32), without an exponent, and at
// least one fraction digit when the digits have no point ("9.0").
func javaPlain(f float64, bits int) string {
	if f == 0 {
		return "0.0"
	}
	sign := ""
	if f < 0 {
		sign, f = "-", -f
	}
	if f >= 1e-3 && f < 1e7 {
		s := strconv.FormatFloat(f, 'f', -1, bits)
		if !strings.Contains(s, ".") {
			s += ".0"
		}
		return sign + s
	}
	// Java prints d.dddEn here; BigDecimal keeps those digits with a
	// scale of the fraction's length minus n.
	mant, expText, _ := strings.Cut(strconv.FormatFloat(f, 'e', -1, bits), "e")
	exp, _ := strconv.Atoi(expText)
	whole, frac, _ := strings.Cut(mant, ".")
	if frac == "" {
		frac = "0"
	}
	digits, scale := whole+frac, len(frac)-exp
	switch {
	case scale <= 0:
		return sign + digits + strings.Repeat("0", -scale)
	case len(digits) <= scale:
		return sign + "0." + strings.Repeat("0", scale-len(digits)) + digits
	}
	return sign + digits[:len(digits)-scale] + "." + digits[len(digits)-scale:]
}

// numberResult turns HINCRBYFLOAT's text into a value of like's type, as
// Redisson's NumberConvertor turns it into the delta's class.
func numberResult(text string, like reflect.Type) (reflect.Value, error) {
	v := reflect.New(like).Elem()
	bad := fmt.Errorf("%w: the new value %q is not a %s (it was stored)", codec.ErrDecode, text, like)
	switch like.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, err := strconv.ParseInt(text, 10, 64)
		if err != nil || v.OverflowInt(n) {
			return v, bad
		}
		v.SetInt(n)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		n, err := strconv.ParseUint(text, 10, 64)
		if err != nil || v.OverflowUint(n) {
			return v, bad
		}
		v.SetUint(n)
	case reflect.Float32, reflect.Float64:
		f, err := strconv.ParseFloat(text, like.Bits())
		if err != nil {
			return v, bad
		}
		v.SetFloat(f)
	case reflect.String:
		v.SetString(text)
	default:
		return v, bad
	}
	return v, nil
}
