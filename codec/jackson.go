package codec

import (
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
// handles scalars, slices and maps). Options adapt it to the Redisson
// version of the Java peers (UUIDTypeInfo).
func JsonJackson(types *Types, opts ...Option) Codec {
	c := &jackson{name: "JsonJackson", typed: true, f: jsonFormat{}, types: types}
	c.apply(opts)
	return c
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
func MsgPackJackson(types *Types, opts ...Option) Codec {
	c := &jackson{name: "MsgPackJackson", typed: true, f: msgpackFormat{}, types: types}
	c.apply(opts)
	return c
}

// Option adapts JsonJackson or MsgPackJackson to what the Java peers run.
type Option func(*jackson)

// UUIDTypeInfo makes the codec write every java.util.UUID with type
// information, ["java.util.UUID","<uuid>"], as Redisson 4.2.0 and later do
// (recorded on 4.7.0, whose mapper adds it for UUID fields too and then
// refuses a UUID field written as plain text). Use it when the Java peers
// run such a version. Without it the codec writes what Redisson 3.x writes:
// the plain text, wrapped only where the Java type is Object (an element of
// a list or map, a field of Go type any). Decoding reads both forms either
// way.
func UUIDTypeInfo() Option { return func(c *jackson) { c.uuidTyped = true } }

func (c *jackson) apply(opts []Option) {
	for _, o := range opts {
		if o != nil {
			o(c)
		}
	}
}

type jackson struct {
	name      string
	typed     bool // default typing on (JsonJackson, MsgPackJackson)
	f         format
	types     *Types
	uuidTyped bool // UUIDTypeInfo
}

// msgpack reports whether the codec writes MessagePack, which holds no
// integer beyond 64 bits and no decimal text.
func (c *jackson) msgpack() bool {
	_, ok := c.f.(msgpackFormat)
	return ok
}

// Encode implements Codec.
func (c *jackson) Encode(v any) ([]byte, error) {
	e := encoder{c: c}
	n, err := e.encode(reflect.ValueOf(v), posRoot, 0)
	if err != nil {
		if _, ok := err.(*unsupportedError); ok {
			return nil, encodeError(c.name, err) // it names the type
		}
		// Name the Go type of the value (the path, if any, starts there).
		return nil, encodeError(c.name, fmt.Errorf("%T: %w", v, err))
	}
	b, err := c.f.write(&n)
	if err != nil {
		return nil, encodeError(c.name, err)
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
		return decodeError(c.name, err)
	}
	d := decoder{c: c}
	if err := d.decode(&n, t); err != nil {
		return decodeError(c.name, err)
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

// unsupportedError is a Go type no codec of this package can represent.
type unsupportedError struct {
	t   reflect.Type
	why string
}

func (e *unsupportedError) Error() string {
	return fmt.Sprintf("unsupported Go type %s: %s", e.t, e.why)
}
func (e *unsupportedError) Unwrap() error { return ErrUnsupportedType }

func unsupported(t reflect.Type, why string) error { return &unsupportedError{t: t, why: why} }

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
	classDate       = "java.util.Date"
	classUUID       = "java.util.UUID"
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
	}
	if n, ok, err := e.special(v, p, depth); ok {
		return n, err
	}
	if n, ok, err := e.scalar(v, p); ok {
		return n, err
	}
	switch v.Kind() {
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			if v.IsNil() {
				return node{kind: kNull}, nil
			}
			return e.wrapIf(node{kind: kBytes, bin: append([]byte{}, v.Bytes()...)}, classBytes, p == posObject), nil
		}
		if v.IsNil() {
			return node{kind: kNull}, nil
		}
		return e.list(v, p, depth)
	case reflect.Array:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			b := make([]byte, v.Len())
			reflect.Copy(reflect.ValueOf(b), v)
			return e.wrapIf(node{kind: kBytes, bin: b}, classBytes, p == posObject), nil
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
	return node{}, unsupported(v.Type(), "Java has no counterpart")
}

// scalar encodes v of a bool, string, integer or float kind at position
// p, and reports whether v is of one of those kinds.
func (e *encoder) scalar(v reflect.Value, p pos) (node, bool, error) {
	switch v.Kind() {
	case reflect.Bool:
		return node{kind: kBool, b: v.Bool()}, true, nil
	case reflect.String:
		s := v.String()
		if !utf8.ValidString(s) {
			return node{}, true, fmt.Errorf("string %.40q is not UTF-8", s)
		}
		n := node{kind: kString, s: s}
		if class, ok := e.c.types.class(v.Type()); ok && e.c.typed && p == posObject {
			return wrapper(class, n), true, nil
		}
		return n, true, nil
	case reflect.Int8:
		return e.wrapIf(node{kind: kInt, i: v.Int()}, classByte, p == posObject), true, nil
	case reflect.Int16, reflect.Uint8:
		return e.wrapIf(intNode(v), classShort, p == posObject), true, nil
	case reflect.Int32, reflect.Uint16:
		return intNode(v), true, nil
	case reflect.Int, reflect.Int64, reflect.Uint, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		if v.CanUint() && v.Uint() > math.MaxInt64 {
			return node{}, true, fmt.Errorf("%d does not fit a Java long", v.Uint())
		}
		return e.wrapIf(intNode(v), classLong, p != posField), true, nil
	case reflect.Float32:
		return e.wrapIf(node{kind: kFloat, f: v.Float(), f32: true}, classFloat, p == posObject), true, nil
	case reflect.Float64:
		f := v.Float()
		finite := !math.IsNaN(f) && !math.IsInf(f, 0)
		return e.wrapIf(node{kind: kFloat, f: f}, classDouble, p == posObject && !finite), true, nil
	}
	return node{}, false, nil
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
	vp := elemPos(p)
	entries := make([]mapEntry, 0, v.Len())
	iter := v.MapRange()
	for iter.Next() {
		me, err := newMapEntry(iter.Key())
		if err != nil {
			return node{}, err
		}
		me.val = iter.Value()
		entries = append(entries, me)
	}
	class := classHashMap
	if e.c.typed && v.Type().Elem().Kind() == reflect.Interface && v.Type().Key().Kind() == reflect.String {
		// An object of an unknown class decoded into a map: write it back
		// as that class, properties sorted.
		if cv := v.MapIndex(reflect.ValueOf(classKey).Convert(v.Type().Key())); cv.IsValid() && !cv.IsNil() &&
			cv.Elem().Kind() == reflect.String && !strings.HasPrefix(cv.Elem().String(), "java.util.") {
			class = cv.Elem().String()
		}
	}
	if class == classHashMap {
		hashMapOrder(entries)
	} else {
		sort.Slice(entries, func(i, j int) bool { return compareJava(entries[i].key, entries[j].key) < 0 })
	}
	members := make([]member, 0, len(entries)+1)
	if e.c.typed {
		members = append(members, member{key: classKey, val: node{kind: kString, s: class}})
	}
	for _, me := range entries {
		if class != classHashMap && me.key == classKey {
			continue
		}
		n, err := e.encode(me.val, vp, depth+1)
		if err != nil {
			return node{}, atPath(err, "."+me.key)
		}
		if n.kind == kNull {
			continue // Include.NON_NULL applies to map values too
		}
		members = append(members, member{key: me.key, val: n})
	}
	return node{kind: kObject, obj: members}, nil
}

func (e *encoder) structValue(v reflect.Value, depth int) (node, error) {
	rt := v.Type()
	fields, err := structFields(rt)
	if err != nil {
		return node{}, err
	}
	if len(fields) == 0 && hiddenData(v) {
		return node{}, unsupported(rt, "its data is in unexported fields, which the codec cannot see, "+
			"so it would be written as an object without properties (give the type MarshalJSON or MarshalText, "+
			"or exported fields)")
	}
	members := make([]member, 0, len(fields)+1)
	if e.c.typed {
		class, ok := e.c.types.class(rt)
		if !ok {
			//lint:ignore ST1005 "Go" is a proper noun
			return node{}, fmt.Errorf("Go type %s has no Java class: register it with Types.Register", rt)
		}
		members = append(members, member{key: classKey, val: node{kind: kString, s: class}})
	}
	for i := range fields {
		f := &fields[i]
		fv, err := v.FieldByIndexErr(f.index)
		if err != nil {
			continue // inside a nil embedded pointer: Java's null, left out
		}
		if f.omit.omits(fv) {
			continue
		}
		var n node
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

// hiddenData reports whether a struct holds a non-zero value in an
// unexported field (blank fields aside).
func hiddenData(v reflect.Value) bool {
	rt := v.Type()
	for i := 0; i < rt.NumField(); i++ {
		sf := rt.Field(i)
		if !sf.IsExported() && sf.Name != "_" && !v.Field(i).IsZero() {
			return true
		}
	}
	return false
}

// fieldInfo is one property of a struct.
type fieldInfo struct {
	name  string
	index []int
	boxed bool
	array bool
	omit  omission // omitempty, omitzero
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
	r.fields, r.err = collectFields(rt, nil, map[reflect.Type]bool{rt: true})
	if r.err == nil {
		sort.Slice(r.fields, func(i, j int) bool { return compareJava(r.fields[i].name, r.fields[j].name) < 0 })
		for i, f := range r.fields {
			if _, dup := r.byName[f.name]; dup {
				//lint:ignore ST1005 "Go" is a proper noun
				r.err = fmt.Errorf("Go type %s has two properties named %q", rt, f.name)
				break
			}
			r.byName[f.name] = i
		}
	}
	fieldCache.Store(rt, r)
	return r
}

// collectFields lists the properties of rt, embedded structs (also through
// pointers, as encoding/json does) flattened as Java superclass fields.
// seen holds the embedded types on the way, which a type embedding itself
// through a pointer would otherwise repeat for ever.
func collectFields(rt reflect.Type, prefix []int, seen map[reflect.Type]bool) ([]fieldInfo, error) {
	var out []fieldInfo
	for i := 0; i < rt.NumField(); i++ {
		sf := rt.Field(i)
		name, opts, skip := fieldTag(sf)
		if skip {
			continue
		}
		index := append(append([]int{}, prefix...), i)
		if et := embeddedStruct(sf); et != nil && name == "" {
			if seen[et] {
				continue
			}
			seen[et] = true
			inner, err := collectFields(et, index, seen)
			delete(seen, et)
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
		var omitEmpty, omitZero bool
		for _, o := range opts {
			switch o {
			case "boxed":
				f.boxed = true
			case "array":
				f.array = true
			case "omitempty":
				omitEmpty = true
			case "omitzero":
				omitZero = true
			case "":
			default:
				return nil, fmt.Errorf("field %s.%s: unknown redisson tag option %q", rt, sf.Name, o)
			}
		}
		f.omit = newOmission(sf.Type, omitEmpty, omitZero)
		out = append(out, f)
	}
	return out, nil
}

// embeddedStruct returns the struct type an embedded field flattens, or
// nil: a struct or a pointer to one, unless the type has a mapping of its
// own (time.Time, big.Int, a json.Marshaler...), which makes it a value.
func embeddedStruct(sf reflect.StructField) reflect.Type {
	if !sf.Anonymous {
		return nil
	}
	t := sf.Type
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || hasOwnMapping(t) {
		return nil
	}
	return t
}

// fieldTag reads the `redisson` tag (name and options), falling back to
// the name of the `json` tag. The json tag's omitempty and omitzero count
// as options too: a struct written for encoding/json leaves out here what
// it leaves out there.
func fieldTag(sf reflect.StructField) (name string, opts []string, skip bool) {
	if tag, ok := sf.Tag.Lookup("redisson"); ok {
		if tag == "-" {
			return "", nil, true
		}
		parts := strings.Split(tag, ",")
		name, opts = parts[0], parts[1:]
	}
	tag, ok := sf.Tag.Lookup("json")
	if !ok {
		return name, opts, false
	}
	if name == "" && tag == "-" {
		return "", nil, true
	}
	jsonName, jsonOpts, _ := strings.Cut(tag, ",")
	if name == "" {
		name = jsonName
	}
	for _, o := range strings.Split(jsonOpts, ",") {
		if o == "omitempty" || o == "omitzero" {
			opts = append(opts, o)
		}
	}
	return name, opts, false
}
