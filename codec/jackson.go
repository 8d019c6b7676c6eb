package codec

import (
	"encoding/base64"
	"errors"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"
)

// JsonJackson returns Redisson's JsonJacksonCodec: JSON with Jackson's
// default typing as Redisson configures it (class names for non-final types
// and java.lang.Long, properties sorted, nulls left out). types declares the
// Java classes of Go structs and enums; nil means none (such a codec still
// handles scalars, slices and maps).
func JsonJackson(types *Types) Codec {
	return &jackson{name: "JsonJackson", typed: true, f: jsonFormat{}, types: types}
}

// TypedJsonJackson returns Redisson's TypedJsonJacksonCodec: the same JSON
// as JsonJackson without any type information, what Java writes with
// new TypedJsonJacksonCodec(Foo.class). It needs no registry: the Go type
// decoded into plays the role of Foo.class.
func TypedJsonJackson() Codec {
	return &jackson{name: "TypedJsonJackson", typed: false, f: jsonFormat{}}
}

// MsgPackJackson returns Redisson's MsgPackJacksonCodec: JsonJackson's
// rules (type information, order, nulls) in MessagePack instead of JSON, as
// msgpack-java's Jackson factory writes it (Long 42 is 92 ae
// "java.lang.Long" 2a). The Java side needs org.msgpack:jackson-dataformat-msgpack.
func MsgPackJackson(types *Types) Codec {
	return &jackson{name: "MsgPackJackson", typed: true, f: msgpackFormat{}, types: types}
}

type jackson struct {
	name  string
	typed bool // default typing on (JsonJackson, MsgPackJackson)
	f     format
	types *Types
}

// Encode implements Codec.
func (c *jackson) Encode(v any) ([]byte, error) {
	e := encoder{c: c}
	n, err := e.encode(reflect.ValueOf(v), posRoot, 0)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrEncode, c.name, err)
	}
	b, err := c.f.write(&n)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrEncode, c.name, err)
	}
	return b, nil
}

// Decode implements Codec.
func (c *jackson) Decode(data []byte, v any) error {
	t, err := target(c.name, v)
	if err != nil {
		return err
	}
	n, err := c.f.parse(data)
	if err != nil {
		return fmt.Errorf("%w: %s: %w", ErrDecode, c.name, err)
	}
	d := decoder{c: c}
	if err := d.decode(&n, t); err != nil {
		return fmt.Errorf("%w: %s: %w", ErrDecode, c.name, err)
	}
	return nil
}

// pathError locates an error inside a value ("at .tags[1]: ...").
type pathError struct {
	path string
	err  error
}

func (e *pathError) Error() string { return "at " + e.path + ": " + e.err.Error() }
func (e *pathError) Unwrap() error { return e.err }

func atPath(err error, seg string) error {
	var pe *pathError
	if errors.As(err, &pe) && pe == err {
		pe.path = seg + pe.path
		return pe
	}
	return &pathError{path: seg, err: err}
}

// pos is the Java type a value is written as, which decides whether Jackson
// writes type information for it.
type pos uint8

const (
	posRoot   pos = iota // the top value: its runtime class; collections are erased (elements are Objects)
	posField             // a struct field of a concrete Go type: primitives (long) stay plain
	posBoxed             // a declared boxed type: pointer fields, elements of a declared collection
	posObject            // declared Object: only Jackson's natural types (String, Integer, Double, Boolean) stay plain
)

func (p pos) erased() bool { return p == posRoot || p == posObject }

// Java classes the codecs write for Go kinds.
const (
	classLong       = "java.lang.Long"
	classInteger    = "java.lang.Integer"
	classShort      = "java.lang.Short"
	classByte       = "java.lang.Byte"
	classDouble     = "java.lang.Double"
	classFloat      = "java.lang.Float"
	classString     = "java.lang.String"
	classBoolean    = "java.lang.Boolean"
	classBigInt     = "java.math.BigInteger"
	classBigDecimal = "java.math.BigDecimal"
	classBytes      = "[B"
	classArrayList  = "java.util.ArrayList"
	classHashMap    = "java.util.HashMap"
)

type encoder struct{ c *jackson }

func (e *encoder) encode(v reflect.Value, p pos, depth int) (node, error) {
	if depth > maxDepth {
		return node{}, fmt.Errorf("nesting deeper than %d (a cyclic value?)", maxDepth)
	}
	if !v.IsValid() {
		return node{kind: kNull}, nil
	}
	typed := e.c.typed
	switch v.Kind() {
	case reflect.Interface:
		if v.IsNil() {
			return node{kind: kNull}, nil
		}
		return e.encode(v.Elem(), posObject, depth+1)
	case reflect.Pointer:
		if v.IsNil() {
			return node{kind: kNull}, nil
		}
		if p == posField {
			p = posBoxed
		}
		return e.encode(v.Elem(), p, depth+1)
	case reflect.Bool:
		return node{kind: kBool, b: v.Bool()}, nil
	case reflect.String:
		s := v.String()
		if !utf8.ValidString(s) {
			return node{}, fmt.Errorf("string %.40q is not UTF-8", s)
		}
		n := node{kind: kString, s: s}
		if class, ok := e.c.types.class(v.Type()); ok && typed && p == posObject {
			return wrapper(class, n), nil
		}
		return n, nil
	case reflect.Int8:
		return e.wrapIf(node{kind: kInt, i: v.Int()}, classByte, p == posObject), nil
	case reflect.Int16, reflect.Uint8:
		return e.wrapIf(intNode(v), classShort, p == posObject), nil
	case reflect.Int32, reflect.Uint16:
		return intNode(v), nil
	case reflect.Int, reflect.Int64, reflect.Uint, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		if v.CanUint() && v.Uint() > math.MaxInt64 {
			return node{}, fmt.Errorf("%d does not fit a Java long", v.Uint())
		}
		return e.wrapIf(intNode(v), classLong, p != posField), nil
	case reflect.Float32:
		return e.wrapIf(node{kind: kFloat, f: v.Float(), f32: true}, classFloat, p == posObject), nil
	case reflect.Float64:
		f := v.Float()
		finite := !math.IsNaN(f) && !math.IsInf(f, 0)
		return e.wrapIf(node{kind: kFloat, f: f}, classDouble, p == posObject && !finite), nil
	case reflect.Slice:
		if v.IsNil() {
			return node{kind: kNull}, nil
		}
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return e.wrapIf(node{kind: kBytes, bin: append([]byte{}, v.Bytes()...)}, classBytes, p == posObject), nil
		}
		return e.list(v, p, depth)
	case reflect.Map:
		if v.IsNil() {
			return node{kind: kNull}, nil
		}
		return e.mapValue(v, p, depth)
	case reflect.Struct:
		return e.structValue(v, depth)
	}
	return node{}, fmt.Errorf("unsupported Go type %s", v.Type())
}

func intNode(v reflect.Value) node {
	if v.CanUint() {
		return node{kind: kInt, i: int64(v.Uint())}
	}
	return node{kind: kInt, i: v.Int()}
}

// wrapIf wraps n as ["<class>", n] when the codec is typed and cond holds.
func (e *encoder) wrapIf(n node, class string, cond bool) node {
	if e.c.typed && cond {
		return wrapper(class, n)
	}
	return n
}

// elemPos is the position of the elements of a collection or map at p: a
// collection whose class came from its runtime value has Object elements
// (type erasure), a declared one (a struct field) has its element type.
func elemPos(p pos) pos {
	if p.erased() {
		return posObject
	}
	return posBoxed
}

func (e *encoder) list(v reflect.Value, p pos, depth int) (node, error) {
	ep := elemPos(p)
	arr := make([]node, v.Len())
	for i := range arr {
		n, err := e.encode(v.Index(i), ep, depth+1)
		if err != nil {
			return node{}, atPath(err, fmt.Sprintf("[%d]", i))
		}
		arr[i] = n
	}
	return e.wrapIf(node{kind: kArray, arr: arr}, classArrayList, true), nil
}

// javaArray writes a slice as a Java array of primitives or Strings: a
// plain array, elements as primitives.
func (e *encoder) javaArray(v reflect.Value, depth int) (node, error) {
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return node{kind: kNull}, nil
		}
		v = v.Elem()
	}
	if v.Kind() != reflect.Slice {
		return node{}, fmt.Errorf(`option "array" needs a slice, not %s`, v.Type())
	}
	switch v.Type().Elem().Kind() {
	case reflect.Bool, reflect.String, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
	default:
		return node{}, fmt.Errorf(`option "array" supports slices of strings, booleans and numbers, not %s`, v.Type())
	}
	if v.IsNil() {
		return node{kind: kNull}, nil
	}
	arr := make([]node, v.Len())
	for i := range arr {
		n, err := e.encode(v.Index(i), posField, depth+1)
		if err != nil {
			return node{}, atPath(err, fmt.Sprintf("[%d]", i))
		}
		arr[i] = n
	}
	return node{kind: kArray, arr: arr}, nil
}

func (e *encoder) mapValue(v reflect.Value, p pos, depth int) (node, error) {
	kt := v.Type().Key()
	if kt.Kind() != reflect.String {
		return node{}, fmt.Errorf("map keys must be strings, not %s", kt)
	}
	vp := elemPos(p)
	keys := make([]string, 0, v.Len())
	for _, k := range v.MapKeys() {
		s := k.String()
		if !utf8.ValidString(s) {
			return node{}, fmt.Errorf("map key %.40q is not UTF-8", s)
		}
		keys = append(keys, s)
	}
	members := make([]member, 0, len(keys)+1)
	class := classHashMap
	if e.c.typed && v.Type().Elem().Kind() == reflect.Interface {
		// An object of an unknown class decoded into a map: write it back
		// as that class, properties sorted.
		if cv := v.MapIndex(reflect.ValueOf(classKey).Convert(kt)); cv.IsValid() && !cv.IsNil() &&
			cv.Elem().Kind() == reflect.String && !strings.HasPrefix(cv.Elem().String(), "java.util.") {
			class = cv.Elem().String()
			sort.Slice(keys, func(i, j int) bool { return compareJava(keys[i], keys[j]) < 0 })
		}
	}
	if class == classHashMap {
		keys = hashMapOrder(keys)
	}
	if e.c.typed {
		members = append(members, member{key: classKey, val: node{kind: kString, s: class}})
	}
	for _, k := range keys {
		if class != classHashMap && k == classKey {
			continue
		}
		n, err := e.encode(v.MapIndex(reflect.ValueOf(k).Convert(kt)), vp, depth+1)
		if err != nil {
			return node{}, atPath(err, "."+k)
		}
		if n.kind == kNull {
			continue // Include.NON_NULL applies to map values too
		}
		members = append(members, member{key: k, val: n})
	}
	return node{kind: kObject, obj: members}, nil
}

func (e *encoder) structValue(v reflect.Value, depth int) (node, error) {
	rt := v.Type()
	fields, err := structFields(rt)
	if err != nil {
		return node{}, err
	}
	members := make([]member, 0, len(fields)+1)
	if e.c.typed {
		class, ok := e.c.types.class(rt)
		if !ok {
			return node{}, fmt.Errorf("Go type %s has no Java class: register it with Types.Register", rt)
		}
		members = append(members, member{key: classKey, val: node{kind: kString, s: class}})
	}
	for i := range fields {
		f := &fields[i]
		fv := v.FieldByIndex(f.index)
		var n node
		var err error
		switch {
		case f.array:
			n, err = e.javaArray(fv, depth+1)
		case f.boxed:
			n, err = e.encode(fv, posBoxed, depth+1)
		default:
			n, err = e.encode(fv, posField, depth+1)
		}
		if err != nil {
			return node{}, atPath(err, "."+f.name)
		}
		if n.kind == kNull {
			continue
		}
		members = append(members, member{key: f.name, val: n})
	}
	return node{kind: kObject, obj: members}, nil
}

// fieldInfo is one property of a struct.
type fieldInfo struct {
	name  string
	index []int
	boxed bool
	array bool
}

type fieldsResult struct {
	fields []fieldInfo
	byName map[string]int
	err    error
}

var fieldCache sync.Map // reflect.Type → *fieldsResult

func structFields(rt reflect.Type) ([]fieldInfo, error) {
	r := cachedFields(rt)
	return r.fields, r.err
}

func cachedFields(rt reflect.Type) *fieldsResult {
	if r, ok := fieldCache.Load(rt); ok {
		return r.(*fieldsResult)
	}
	r := &fieldsResult{byName: map[string]int{}}
	r.fields, r.err = collectFields(rt, nil)
	if r.err == nil {
		sort.Slice(r.fields, func(i, j int) bool { return compareJava(r.fields[i].name, r.fields[j].name) < 0 })
		for i, f := range r.fields {
			if _, dup := r.byName[f.name]; dup {
				r.err = fmt.Errorf("Go type %s has two properties named %q", rt, f.name)
				break
			}
			r.byName[f.name] = i
		}
	}
	fieldCache.Store(rt, r)
	return r
}

func collectFields(rt reflect.Type, prefix []int) ([]fieldInfo, error) {
	var out []fieldInfo
	for i := 0; i < rt.NumField(); i++ {
		sf := rt.Field(i)
		name, opts, skip := fieldTag(sf)
		if skip {
			continue
		}
		index := append(append([]int{}, prefix...), i)
		if sf.Anonymous && name == "" && sf.Type.Kind() == reflect.Struct {
			inner, err := collectFields(sf.Type, index)
			if err != nil {
				return nil, err
			}
			out = append(out, inner...)
			continue
		}
		if !sf.IsExported() {
			continue
		}
		if name == "" {
			name = javaName(sf.Name)
		}
		f := fieldInfo{name: name, index: index}
		for _, o := range opts {
			switch o {
			case "boxed":
				f.boxed = true
			case "array":
				f.array = true
			case "":
			default:
				return nil, fmt.Errorf("field %s.%s: unknown redisson tag option %q", rt, sf.Name, o)
			}
		}
		out = append(out, f)
	}
	return out, nil
}

// fieldTag reads the `redisson` tag (name and options), falling back to
// the name of the `json` tag.
func fieldTag(sf reflect.StructField) (name string, opts []string, skip bool) {
	if tag, ok := sf.Tag.Lookup("redisson"); ok {
		if tag == "-" {
			return "", nil, true
		}
		parts := strings.Split(tag, ",")
		name, opts = parts[0], parts[1:]
	}
	if name == "" {
		if tag, ok := sf.Tag.Lookup("json"); ok {
			if tag == "-" {
				return "", nil, true
			}
			name, _, _ = strings.Cut(tag, ",")
		}
	}
	return name, opts, false
}

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
	return t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8
}

func (d *decoder) decode(n *node, t reflect.Value) error {
	switch t.Kind() {
	case reflect.Interface:
		if t.NumMethod() != 0 {
			return fmt.Errorf("cannot decode into interface type %s", t.Type())
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
	rt := t.Type()
	if d.c.typed && (isScalar(rt.Kind()) || isBytes(rt)) {
		if class, inner, ok := n.asWrapper(); ok {
			want, registered := d.c.types.class(rt)
			_, scalar := wrappedTypes[class]
			switch {
			case registered && class != want:
				return fmt.Errorf("%w: %q, want %q for Go type %s", ErrWrongClass, class, want, rt)
			case !registered && !scalar && class != classBigInt && class != classBigDecimal:
				return fmt.Errorf("%w: %q is not a scalar class (decoding into %s)", ErrWrongClass, class, rt)
			}
			n = inner
		}
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
		switch n.kind {
		case kInt:
			return setInt(t, n.i)
		case kUint:
			if !t.CanUint() || t.OverflowUint(n.u) {
				return fmt.Errorf("%d overflows %s", n.u, rt)
			}
			t.SetUint(n.u)
		default:
			return mismatch(n, rt)
		}
	case k == reflect.Float32 || k == reflect.Float64:
		f, ok := floatValue(n)
		if !ok {
			return mismatch(n, rt)
		}
		if k == reflect.Float32 && !math.IsInf(f, 0) && math.Abs(f) > math.MaxFloat32 {
			return fmt.Errorf("%v overflows %s", f, rt)
		}
		t.SetFloat(f)
	case isBytes(rt):
		b, err := bytesValue(n)
		if err != nil {
			return err
		}
		t.SetBytes(b)
	case k == reflect.Slice:
		arr := n
		if d.c.typed {
			if _, inner, ok := n.asWrapper(); ok && inner.kind == kArray {
				arr = inner
			}
		}
		if arr.kind != kArray {
			return mismatch(n, rt)
		}
		s := reflect.MakeSlice(rt, len(arr.arr), len(arr.arr))
		for i := range arr.arr {
			if err := d.decode(&arr.arr[i], s.Index(i)); err != nil {
				return atPath(err, fmt.Sprintf("[%d]", i))
			}
		}
		t.Set(s)
	case k == reflect.Map:
		if rt.Key().Kind() != reflect.String {
			return fmt.Errorf("cannot decode into %s: map keys must be strings", rt)
		}
		if n.kind != kObject {
			return mismatch(n, rt)
		}
		keep := d.keepClass(n) && rt.Elem().Kind() == reflect.Interface
		m := reflect.MakeMapWithSize(rt, len(n.obj))
		for i := range n.obj {
			mb := &n.obj[i]
			if d.c.typed && mb.key == classKey && !keep {
				continue
			}
			ev := reflect.New(rt.Elem()).Elem()
			if err := d.decode(&mb.val, ev); err != nil {
				return atPath(err, "."+mb.key)
			}
			m.SetMapIndex(reflect.ValueOf(mb.key).Convert(rt.Key()), ev)
		}
		t.Set(m)
	case k == reflect.Struct:
		return d.structValue(n, t)
	default:
		return fmt.Errorf("unsupported Go type %s", rt)
	}
	return nil
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
	if d.c.typed {
		want, ok := d.c.types.class(rt)
		if !ok {
			return fmt.Errorf("Go type %s has no Java class: register it with Types.Register", rt)
		}
		got, ok := n.classProperty()
		if !ok {
			return fmt.Errorf("%w: the object has no \"@class\", want %q for Go type %s", ErrWrongClass, want, rt)
		}
		if got != want {
			return fmt.Errorf("%w: \"@class\" is %q, want %q for Go type %s", ErrWrongClass, got, want, rt)
		}
	}
	t.SetZero()
	for i := range n.obj {
		mb := &n.obj[i]
		fi, ok := r.byName[mb.key]
		if !ok {
			continue // unknown properties are ignored, as Redisson's mapper does
		}
		if err := d.decode(&mb.val, t.FieldByIndex(r.fields[fi].index)); err != nil {
			return atPath(err, "."+mb.key)
		}
	}
	return nil
}

func mismatch(n *node, rt reflect.Type) error {
	return fmt.Errorf("cannot decode a %s into %s", n.kind, rt)
}

func floatValue(n *node) (float64, bool) {
	switch n.kind {
	case kFloat:
		return n.f, true
	case kInt:
		return float64(n.i), true
	case kUint:
		return float64(n.u), true
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
	return nil, fmt.Errorf("cannot decode a %s into []byte", n.kind)
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
	case kUint:
		return n.u, nil
	case kFloat:
		return n.f, nil // msgpack-java reads float32 as a Double too
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
					if rt.Kind() != reflect.Struct {
						return nil, fmt.Errorf("%w: %q is registered for %s, not an object", ErrWrongClass, class, rt)
					}
					v := reflect.New(rt).Elem()
					if err := d.structValue(n, v); err != nil {
						return nil, err
					}
					return v.Interface(), nil
				}
			}
		}
		keep := d.keepClass(n)
		m := make(map[string]any, len(n.obj))
		for i := range n.obj {
			mb := &n.obj[i]
			if d.c.typed && mb.key == classKey && !keep {
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

// wrapped decodes the value of a ["<class>", value] wrapper.
func (d *decoder) wrapped(class string, n *node, depth int) (any, error) {
	if rt, ok := wrappedTypes[class]; ok {
		v := reflect.New(rt).Elem()
		if err := d.decode(n, v); err != nil {
			return nil, err
		}
		return v.Interface(), nil
	}
	if class == classBigInt {
		switch n.kind {
		case kInt:
			return n.i, nil
		case kUint:
			return n.u, nil
		}
		return nil, fmt.Errorf("cannot decode a %s as %s", n.kind, class)
	}
	if rt, ok := d.c.types.lookup(class); ok {
		if rt.Kind() != reflect.String || n.kind != kString {
			return nil, fmt.Errorf("%w: %q is registered for %s, got a %s", ErrWrongClass, class, rt, n.kind)
		}
		return reflect.ValueOf(n.s).Convert(rt).Interface(), nil
	}
	if n.kind == kArray {
		return d.anyList(n, depth) // any collection or array class
	}
	// Other classes (BigDecimal, Date, UUID, enums not registered...): the
	// plain value.
	return d.anyValue(n, depth)
}
