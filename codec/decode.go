package codec

import (
	"encoding/base64"
	"fmt"
	"math"
	"math/big"
	"reflect"
	"strconv"
	"strings"
)

type decoder struct{ c *jackson }

var (
	typeInt64   = reflect.TypeFor[int64]()
	typeInt32   = reflect.TypeFor[int32]()
	typeInt16   = reflect.TypeFor[int16]()
	typeInt8    = reflect.TypeFor[int8]()
	typeFloat64 = reflect.TypeFor[float64]()
	typeFloat32 = reflect.TypeFor[float32]()
	typeString  = reflect.TypeFor[string]()
	typeBool    = reflect.TypeFor[bool]()
	typeBytes   = reflect.TypeFor[[]byte]()
)

// wrappedTypes are the Go types of the scalar classes a ["<class>", value]
// wrapper may name.
var wrappedTypes = map[string]reflect.Type{
	classLong:    typeInt64,
	classInteger: typeInt32,
	classShort:   typeInt16,
	classByte:    typeInt8,
	classDouble:  typeFloat64,
	classFloat:   typeFloat32,
	classString:  typeString,
	classBoolean: typeBool,
	classBytes:   typeBytes,
}

func isScalar(k reflect.Kind) bool {
	switch k {
	case reflect.Bool, reflect.String, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64:
		return true
	}
	return false
}

func isBytes(t reflect.Type) bool {
	return (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) && t.Elem().Kind() == reflect.Uint8
}

func (d *decoder) decode(n *node, t reflect.Value) error {
	switch t.Kind() {
	case reflect.Interface:
		return d.interfaceValue(n, t)
	case reflect.Pointer:
		if n.kind == kNull {
			t.SetZero()
			return nil
		}
		if t.IsNil() {
			t.Set(reflect.New(t.Type().Elem()))
		}
		return d.decode(n, t.Elem())
	}
	if n.kind == kNull {
		t.SetZero() // as Jackson, which leaves a primitive at its default
		return nil
	}
	if ok, err := d.special(n, t); ok {
		return err
	}
	rt := t.Type()
	n, err := d.unwrapScalar(n, rt)
	if err != nil {
		return err
	}
	switch k := rt.Kind(); {
	case k == reflect.Bool:
		if n.kind != kBool {
			return mismatch(n, rt)
		}
		t.SetBool(n.b)
	case k == reflect.String:
		if n.kind != kString {
			return mismatch(n, rt)
		}
		t.SetString(n.s)
	case k >= reflect.Int && k <= reflect.Uintptr:
		return intInto(n, t)
	case k == reflect.Float32 || k == reflect.Float64:
		return floatInto(n, t)
	case isBytes(rt):
		return bytesInto(n, t)
	case k == reflect.Slice || k == reflect.Array:
		return d.sliceValue(n, t)
	case k == reflect.Map:
		return d.mapValue(n, t)
	case k == reflect.Struct:
		return d.structValue(n, t)
	default:
		return unsupported(rt, "Java has no counterpart")
	}
	return nil
}

// interfaceValue decodes n into t of an interface type: the Go value
// anyValue gives it, for the empty interface; only null for any other.
func (d *decoder) interfaceValue(n *node, t reflect.Value) error {
	if t.NumMethod() != 0 {
		if n.kind == kNull {
			t.SetZero()
			return nil
		}
		return fmt.Errorf("into interface type %s, which has methods (only null decodes into it)", t.Type())
	}
	v, err := d.anyValue(n, 0)
	if err != nil {
		return err
	}
	if v == nil {
		t.SetZero()
	} else {
		t.Set(reflect.ValueOf(v))
	}
	return nil
}

// unwrapScalar returns the value inside a ["<class>", value] wrapper of a
// typed codec decoding into a scalar or bytes of Go type rt, once the
// class fits rt; n itself otherwise.
func (d *decoder) unwrapScalar(n *node, rt reflect.Type) (*node, error) {
	if !d.c.typed || !(isScalar(rt.Kind()) || isBytes(rt)) {
		return n, nil
	}
	class, inner, ok := n.asWrapper()
	if !ok {
		return n, nil
	}
	want, registered := d.c.types.class(rt)
	_, scalar := wrappedTypes[class]
	switch {
	case registered && class != want:
		return nil, wrongClass("%q, want %q for Go type %s", class, want, rt)
	case !registered && !scalar && class != classBigInt && class != classBigDecimal:
		return nil, wrongClass("%q is not a scalar class (decoding into %s)", class, rt)
	}
	return inner, nil
}

// intInto decodes n into t of an integer kind.
func intInto(n *node, t reflect.Value) error {
	rt := t.Type()
	switch n.kind {
	case kInt:
		return setInt(t, n.i)
	case kUint:
		if !t.CanUint() || t.OverflowUint(n.u) {
			return fmt.Errorf("%d overflows %s", n.u, rt)
		}
		t.SetUint(n.u)
	case kBigInt:
		return fmt.Errorf("%.40s overflows %s", n.s, rt)
	default:
		return mismatch(n, rt)
	}
	return nil
}

// floatInto decodes n into t of a float kind.
func floatInto(n *node, t reflect.Value) error {
	rt := t.Type()
	f, ok := floatValue(n)
	if !ok {
		return mismatch(n, rt)
	}
	if rt.Kind() == reflect.Float32 && !math.IsInf(f, 0) && math.Abs(f) > math.MaxFloat32 {
		return fmt.Errorf("%v overflows %s", f, rt)
	}
	t.SetFloat(f)
	return nil
}

// bytesInto decodes n into t, a byte slice or array.
func bytesInto(n *node, t reflect.Value) error {
	rt := t.Type()
	b, err := bytesValue(n)
	if err != nil {
		return err
	}
	if rt.Kind() == reflect.Array {
		if len(b) != rt.Len() {
			return fmt.Errorf("%d bytes do not fit %s", len(b), rt)
		}
		reflect.Copy(t, reflect.ValueOf(b))
		return nil
	}
	t.SetBytes(b)
	return nil
}

// sliceValue decodes n, an array (in a typed codec's wrapper or not), into
// t, a slice or an array of the same length.
func (d *decoder) sliceValue(n *node, t reflect.Value) error {
	rt := t.Type()
	arr := n
	if d.c.typed {
		if _, inner, ok := n.asWrapper(); ok && inner.kind == kArray {
			arr = inner
		}
	}
	if arr.kind != kArray {
		return mismatch(n, rt)
	}
	s := t
	if rt.Kind() == reflect.Slice {
		s = reflect.MakeSlice(rt, len(arr.arr), len(arr.arr))
	} else if len(arr.arr) != rt.Len() {
		return fmt.Errorf("%d elements do not fit %s", len(arr.arr), rt)
	}
	for i := range arr.arr {
		if err := d.decode(&arr.arr[i], s.Index(i)); err != nil {
			return atPath(err, fmt.Sprintf("[%d]", i))
		}
	}
	t.Set(s)
	return nil
}

func (d *decoder) mapValue(n *node, t reflect.Value) error {
	rt := t.Type()
	if err := checkKeyType(rt.Key()); err != nil {
		return err
	}
	if n.kind != kObject {
		return mismatch(n, rt)
	}
	keep := d.keepClass(n) && rt.Elem().Kind() == reflect.Interface && rt.Key().Kind() == reflect.String
	m := reflect.MakeMapWithSize(rt, len(n.obj))
	skip := d.typeID(n, keep)
	for i := range n.obj {
		mb := &n.obj[i]
		if i == skip {
			continue
		}
		kv, err := parseMapKey(mb.key, rt.Key())
		if err != nil {
			return atPath(err, "."+mb.key)
		}
		ev := reflect.New(rt.Elem()).Elem()
		if err := d.decode(&mb.val, ev); err != nil {
			return atPath(err, "."+mb.key)
		}
		m.SetMapIndex(kv, ev)
	}
	t.Set(m)
	return nil
}

// typeID returns the index of an object's type id, the first "@class"
// property, or -1 when there is none or it stays (keep). A later "@class" is
// an entry of a map whose key is "@class", as Jackson writes it.
func (d *decoder) typeID(n *node, keep bool) int {
	if !d.c.typed || keep {
		return -1
	}
	for i := range n.obj {
		if n.obj[i].key == classKey {
			return i
		}
	}
	return -1
}

// keepClass reports whether an object's "@class" stays in a map it is
// decoded into: for classes other than java.util maps.
func (d *decoder) keepClass(n *node) bool {
	if !d.c.typed {
		return false
	}
	class, ok := n.classProperty()
	return ok && !strings.HasPrefix(class, "java.util.")
}

func (d *decoder) structValue(n *node, t reflect.Value) error {
	rt := t.Type()
	if n.kind != kObject {
		return mismatch(n, rt)
	}
	r := cachedFields(rt)
	if r.err != nil {
		return r.err
	}
	if err := d.checkClass(n, rt); err != nil {
		return err
	}
	t.SetZero()
	for i := range n.obj {
		mb := &n.obj[i]
		fi, ok := r.byName[mb.key]
		if !ok {
			continue // unknown properties are ignored, as Redisson's mapper does
		}
		fv, err := fieldForWrite(t, r.fields[fi].index)
		if err == nil {
			err = d.decode(&mb.val, fv)
		}
		if err != nil {
			return atPath(err, "."+mb.key)
		}
	}
	return nil
}

// checkClass checks the "@class" of an object decoded into the struct rt
// (typed codecs only): it must be there and be rt's registered class.
func (d *decoder) checkClass(n *node, rt reflect.Type) error {
	if !d.c.typed {
		return nil
	}
	want, ok := d.c.types.class(rt)
	if !ok {
		//lint:ignore ST1005 "Go" is a proper noun
		return fmt.Errorf("Go type %s has no Java class: register it with Types.Register", rt)
	}
	got, ok := n.classProperty()
	if !ok {
		return wrongClass("the object has no \"@class\", want %q for Go type %s", want, rt)
	}
	if got != want {
		return wrongClass("\"@class\" is %q, want %q for Go type %s", got, want, rt)
	}
	return nil
}

// fieldForWrite returns the field at index, allocating the embedded
// pointers on the way.
func fieldForWrite(v reflect.Value, index []int) (reflect.Value, error) {
	for i, x := range index {
		if i > 0 && v.Kind() == reflect.Pointer {
			if v.IsNil() {
				if !v.CanSet() {
					return reflect.Value{}, fmt.Errorf("cannot allocate the embedded pointer to unexported %s", v.Type().Elem())
				}
				v.Set(reflect.New(v.Type().Elem()))
			}
			v = v.Elem()
		}
		v = v.Field(x)
	}
	return v, nil
}

func mismatch(n *node, rt reflect.Type) error {
	return fmt.Errorf("%s into Go type %s", n.kind.article(), rt)
}

func floatValue(n *node) (float64, bool) {
	switch n.kind {
	case kFloat:
		return n.f, true
	case kInt:
		return float64(n.i), true
	case kUint:
		return float64(n.u), true
	case kBigInt, kDecimal:
		f, err := strconv.ParseFloat(n.s, 64)
		return f, err == nil
	case kString: // Jackson writes not-finite doubles as strings in JSON
		switch n.s {
		case "NaN":
			return math.NaN(), true
		case "Infinity", "+Infinity":
			return math.Inf(1), true
		case "-Infinity":
			return math.Inf(-1), true
		}
	}
	return 0, false
}

func bytesValue(n *node) ([]byte, error) {
	switch n.kind {
	case kBytes:
		return append([]byte{}, n.bin...), nil
	case kString: // JSON: base64
		b, err := base64.StdEncoding.DecodeString(n.s)
		if err != nil {
			return nil, fmt.Errorf("bad base64 for a byte[]: %v", err)
		}
		return b, nil
	}
	return nil, fmt.Errorf("%s into Go type []byte", n.kind.article())
}

// anyValue decodes a value whose Java type is Object.
func (d *decoder) anyValue(n *node, depth int) (any, error) {
	switch n.kind {
	case kNull:
		return nil, nil
	case kBool:
		return n.b, nil
	case kInt:
		if n.i >= math.MinInt32 && n.i <= math.MaxInt32 {
			return int32(n.i), nil // Jackson: Integer when it fits
		}
		return n.i, nil
	case kUint, kBigInt:
		return bigIntValue(n) // Jackson: BigInteger beyond a long
	case kFloat, kDecimal:
		f, _ := floatValue(n)
		return f, nil // msgpack-java reads float32 as a Double too
	case kString:
		return n.s, nil
	case kBytes:
		return append([]byte{}, n.bin...), nil
	case kArray:
		if d.c.typed {
			class, inner, ok := n.asWrapper()
			if !ok {
				return nil, fmt.Errorf(`expected a ["<class>", value] type wrapper, got an array of %d`, len(n.arr))
			}
			v, err := d.wrapped(class, inner, depth)
			if err != nil {
				return nil, atPath(err, "[1]")
			}
			return v, nil
		}
		return d.anyList(n, depth)
	case kObject:
		if d.c.typed {
			if class, ok := n.classProperty(); ok {
				if rt, ok := d.c.types.lookup(class); ok {
					if rt.Kind() != reflect.Struct && !hasOwnMapping(rt) {
						return nil, wrongClass("%q is registered for %s, not an object", class, rt)
					}
					v := reflect.New(rt).Elem()
					if err := d.decode(n, v); err != nil {
						return nil, err
					}
					return v.Interface(), nil
				}
			}
		}
		keep := d.keepClass(n)
		m := make(map[string]any, len(n.obj))
		skip := d.typeID(n, keep)
		for i := range n.obj {
			mb := &n.obj[i]
			if i == skip {
				continue
			}
			var v any
			var err error
			if keep && plainArray(&mb.val) {
				// A field of an unknown class: a Java array of a final
				// type (String[], long[]) has no type information.
				v, err = d.javaArray(&mb.val, depth+1)
			} else {
				v, err = d.anyValue(&mb.val, depth+1)
			}
			if err != nil {
				return nil, atPath(err, "."+mb.key)
			}
			m[mb.key] = v
		}
		return m, nil
	}
	return nil, fmt.Errorf("unknown node kind %d", n.kind)
}

// plainArray reports whether n is an array without type information: not
// a ["<Java class>", value] wrapper.
func plainArray(n *node) bool {
	if n.kind != kArray {
		return false
	}
	class, _, ok := n.asWrapper()
	return !ok || !javaClassName.MatchString(class)
}

// javaArray decodes a plain array, a Java array of a final type, into
// []any: its elements are of that final type, so arrays among them (long[][])
// are plain too.
func (d *decoder) javaArray(n *node, depth int) ([]any, error) {
	out := make([]any, len(n.arr))
	for i := range n.arr {
		var v any
		var err error
		if plainArray(&n.arr[i]) {
			v, err = d.javaArray(&n.arr[i], depth+1)
		} else {
			v, err = d.anyValue(&n.arr[i], depth+1)
		}
		if err != nil {
			return nil, atPath(err, fmt.Sprintf("[%d]", i))
		}
		out[i] = v
	}
	return out, nil
}

func (d *decoder) anyList(n *node, depth int) ([]any, error) {
	out := make([]any, len(n.arr))
	for i := range n.arr {
		v, err := d.anyValue(&n.arr[i], depth+1)
		if err != nil {
			return nil, atPath(err, fmt.Sprintf("[%d]", i))
		}
		out[i] = v
	}
	return out, nil
}

// builtinClasses are the classes of java.util and java.math a wrapper may
// name that decode to a Go type of their own.
var builtinClasses = map[string]reflect.Type{
	classDate:       typeTime,
	classUUID:       typeUUID,
	classBigInt:     reflect.PointerTo(typeBigInt),
	classBigDecimal: typeDecimal,
}

// wrapped decodes the value of a ["<class>", value] wrapper.
func (d *decoder) wrapped(class string, n *node, depth int) (any, error) {
	rt, ok := wrappedTypes[class]
	if !ok {
		rt, ok = builtinClasses[class]
	}
	if ok {
		v := reflect.New(rt).Elem()
		if err := d.decode(n, v); err != nil {
			return nil, err
		}
		return v.Interface(), nil
	}
	if rt, ok := d.c.types.lookup(class); ok {
		if rt.Kind() == reflect.Struct && !hasOwnMapping(rt) {
			return nil, wrongClass("%q is registered for %s, got %s", class, rt, n.kind.article())
		}
		v := reflect.New(rt).Elem()
		if err := d.decode(n, v); err != nil {
			return nil, err
		}
		return v.Interface(), nil
	}
	if n.kind == kArray {
		return d.anyList(n, depth) // any collection or array class
	}
	// Other classes (enums not registered, other scalars...): the plain
	// value.
	return d.anyValue(n, depth)
}

// bigIntValue is the *big.Int of an integer node.
func bigIntValue(n *node) (*big.Int, error) {
	s, ok := numberText(n)
	if !ok {
		return nil, fmt.Errorf("%s as a BigInteger", n.kind.article())
	}
	x, ok := new(big.Int).SetString(s, 10)
	if !ok {
		return nil, fmt.Errorf("%.40q is not an integer", s)
	}
	return x, nil
}
