package codec

import (
	"encoding"
	"encoding/json"
	"fmt"
	"math/big"
	"reflect"
	"sort"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
)

// The Go types the JSON-family codecs map to Java types of their own,
// before any method or kind rule applies.
var (
	typeTime     = reflect.TypeFor[time.Time]()
	typeDuration = reflect.TypeFor[time.Duration]()
	typeUUID     = reflect.TypeFor[uuid.UUID]()
	typeBigInt   = reflect.TypeFor[big.Int]()
	typeBigFloat = reflect.TypeFor[big.Float]()
	typeDecimal  = reflect.TypeFor[Decimal]()

	typeJSONMarshaler   = reflect.TypeFor[json.Marshaler]()
	typeJSONUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	typeTextMarshaler   = reflect.TypeFor[encoding.TextMarshaler]()
	typeTextUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// errDuration explains the refusal of time.Duration: Redisson's mapper has
// no java.time support, so no Java value has a form to match, and a bare
// number would leave the unit to guesswork on the Java side.
const errDuration = "Redisson's mapper refuses java.time.Duration " +
	"(no jackson-datatype-jsr310 module); store an integer with its unit in the name, e.g. d.Milliseconds()"

// isBuiltin reports whether t has a built-in mapping.
func isBuiltin(t reflect.Type) bool {
	switch t {
	case typeTime, typeDuration, typeUUID, typeBigInt, typeBigFloat, typeDecimal:
		return true
	}
	return false
}

// hasOwnMapping reports whether values of t are written by a mapping of
// their own (built in, or the type's JSON or text methods) rather than by
// the rules of their kind.
func hasOwnMapping(t reflect.Type) bool { return mappingsOf(t).enc != byKind }

// addressable returns v or, when v cannot be addressed (a value held in an
// interface), a copy that can: methods with a pointer receiver need one.
func addressable(v reflect.Value) reflect.Value {
	if v.CanAddr() {
		return v
	}
	p := reflect.New(v.Type())
	p.Elem().Set(v)
	return p.Elem()
}

// mapping is how values of a type are written or read when not by the rules
// of their kind.
type mapping uint8

const (
	byKind mapping = iota
	byBuiltin
	byJSON    // MarshalJSON / UnmarshalJSON
	byJSONPtr // MarshalJSON on the pointer
	byText    // MarshalText / UnmarshalText
	byTextPtr // MarshalText on the pointer
)

type mappings struct{ enc, dec mapping }

var mappingCache sync.Map // reflect.Type → mappings

// mappingsOf finds, once per type, what encoding/json would look for: the
// built-in types first, then the JSON methods, then the text methods.
func mappingsOf(rt reflect.Type) mappings {
	if m, ok := mappingCache.Load(rt); ok {
		return m.(mappings)
	}
	var m mappings
	pt := reflect.PointerTo(rt)
	switch {
	case isBuiltin(rt):
		m.enc = byBuiltin
	case rt.Implements(typeJSONMarshaler):
		m.enc = byJSON
	case pt.Implements(typeJSONMarshaler):
		m.enc = byJSONPtr
	case rt.Implements(typeTextMarshaler):
		m.enc = byText
	case pt.Implements(typeTextMarshaler):
		m.enc = byTextPtr
	}
	switch {
	case isBuiltin(rt):
		m.dec = byBuiltin
	case pt.Implements(typeJSONUnmarshaler):
		m.dec = byJSON
	case pt.Implements(typeTextUnmarshaler):
		m.dec = byText
	}
	mappingCache.Store(rt, m)
	return m
}

// method returns v, or its address, as the implementation of a method.
func method(v reflect.Value, ptr bool) any {
	if ptr {
		return addressable(v).Addr().Interface()
	}
	return v.Interface()
}

// special encodes values with a mapping of their own: the built-in types,
// then json.Marshaler, then encoding.TextMarshaler (the order encoding/json
// follows for the last two).
func (e *encoder) special(v reflect.Value, p pos, depth int) (node, bool, error) {
	rt := v.Type()
	switch m := mappingsOf(rt).enc; m {
	case byBuiltin:
		n, err := e.builtin(addressable(v), p)
		return n, true, err
	case byJSON, byJSONPtr:
		n, err := e.marshaled(method(v, m == byJSONPtr).(json.Marshaler), rt, p, depth)
		return n, true, err
	case byText, byTextPtr:
		text, err := method(v, m == byTextPtr).(encoding.TextMarshaler).MarshalText()
		if err != nil {
			return node{}, true, fmt.Errorf("MarshalText of %s: %w", rt, err)
		}
		if !utf8.Valid(text) {
			return node{}, true, fmt.Errorf("MarshalText of %s gave text that is not UTF-8", rt)
		}
		n := node{kind: kString, s: string(text)}
		if class, ok := e.c.types.class(rt); ok && e.c.typed && p == posObject {
			n = wrapper(class, n)
		}
		return n, true, nil
	}
	return node{}, false, nil
}

// builtin encodes the built-in types; v is addressable.
func (e *encoder) builtin(v reflect.Value, p pos) (node, error) {
	var n node
	class := ""
	switch v.Type() {
	case typeTime:
		ms, err := dateMillis(v.Interface().(time.Time))
		if err != nil {
			return node{}, err
		}
		// java.util.Date is not final: type information everywhere.
		n, class = node{kind: kInt, i: ms}, classDate
	case typeDuration:
		return node{}, unsupported(typeDuration, errDuration)
	case typeUUID:
		n = node{kind: kString, s: v.Interface().(uuid.UUID).String()}
		// UUID is final: typed as an Object only, unless the peers' mapper
		// types it everywhere (Redisson 4.2+).
		if e.c.uuidTyped || p == posObject {
			class = classUUID
		}
	case typeBigInt:
		n, class = bigIntNode(v.Addr().Interface().(*big.Int)), classBigInt
		if e.c.msgpack() && n.kind == kBigInt {
			return node{}, fmt.Errorf("BigInteger %.40s does not fit 64 bits, and MessagePack has no larger integer", n.s)
		}
	case typeBigFloat:
		f := v.Addr().Interface().(*big.Float)
		if f.IsInf() {
			return node{}, fmt.Errorf("big.Float %v has no BigDecimal counterpart", f)
		}
		dec, ok := parseDecimal(f.Text('e', -1))
		if !ok {
			return node{}, fmt.Errorf("big.Float %s is beyond the exponents a BigDecimal is written with here", f.Text('g', 10))
		}
		var err error
		if n, err = e.decimalNode(dec); err != nil {
			return node{}, err
		}
		class = classBigDecimal
	case typeDecimal:
		if v.String() == "" {
			return node{kind: kNull}, nil // no number: Java's null
		}
		dec, ok := parseDecimal(v.String())
		if !ok {
			return node{}, fmt.Errorf("Decimal %.40q is not a decimal number", v.String())
		}
		var err error
		if n, err = e.decimalNode(dec); err != nil {
			return node{}, err
		}
		class = classBigDecimal
	}
	if class != "" && e.c.typed {
		n = wrapper(class, n)
	}
	return n, nil
}

// decimalNode is a BigDecimal: all its digits in JSON, what msgpack-java
// makes of it in MessagePack.
func (e *encoder) decimalNode(d decimal) (node, error) {
	if e.c.msgpack() {
		return msgpackDecimal(d)
	}
	return node{kind: kDecimal, s: d.plain()}, nil
}

// marshaled encodes the JSON a json.Marshaler returns. Typed codecs add the
// type information Java needs to read that JSON as Object values with the
// same data: an object becomes a java.util.HashMap (or the registered class,
// properties sorted), an array a java.util.ArrayList (or a wrapper of the
// registered class), and so on inside; scalars stay as they are (Java reads
// them as String, Boolean, Integer/Long/BigInteger by size, or Double), a
// registered type's scalar is wrapped where an enum would be.
func (e *encoder) marshaled(m json.Marshaler, rt reflect.Type, p pos, depth int) (node, error) {
	data, err := m.MarshalJSON()
	if err != nil {
		return node{}, fmt.Errorf("MarshalJSON of %s: %w", rt, err)
	}
	n, err := (jsonFormat{}).parse(data)
	if err != nil {
		return node{}, fmt.Errorf("MarshalJSON of %s gave bad JSON: %w", rt, err)
	}
	if e.c.msgpack() && hasBigInt(&n) {
		return node{}, fmt.Errorf("MarshalJSON of %s gave an integer beyond 64 bits, which MessagePack cannot hold", rt)
	}
	if !e.c.typed {
		return n, nil
	}
	class, registered := e.c.types.class(rt)
	switch n.kind {
	case kObject:
		out := objectAsJava(n, depth)
		if registered {
			out.obj[0].val.s = class
			rest := out.obj[1:]
			sort.SliceStable(rest, func(i, j int) bool { return compareJava(rest[i].key, rest[j].key) < 0 })
		}
		return out, nil
	case kArray:
		out := asJavaObject(n, depth)
		if registered {
			out.arr[0].s = class
		}
		return out, nil
	}
	if registered && p == posObject {
		return wrapper(class, n), nil
	}
	return n, nil
}

func hasBigInt(n *node) bool {
	switch n.kind {
	case kBigInt:
		return true
	case kArray:
		for i := range n.arr {
			if hasBigInt(&n.arr[i]) {
				return true
			}
		}
	case kObject:
		for i := range n.obj {
			if hasBigInt(&n.obj[i].val) {
				return true
			}
		}
	}
	return false
}

// asJavaObject adds to plain JSON the type information of Java Object
// values: objects are java.util.HashMaps, arrays java.util.ArrayLists.
func asJavaObject(n node, depth int) node {
	if depth > maxDepth {
		return n // the parser bounds the nesting already
	}
	switch n.kind {
	case kObject:
		return objectAsJava(n, depth)
	case kArray:
		arr := make([]node, len(n.arr))
		for i := range n.arr {
			arr[i] = asJavaObject(n.arr[i], depth+1)
		}
		return wrapper(classArrayList, node{kind: kArray, arr: arr})
	case kInt:
		if n.i < -1<<31 || n.i >= 1<<31 {
			return wrapper(classLong, n) // what Java writes for the Long it reads
		}
	case kUint, kBigInt:
		return wrapper(classBigInt, n)
	}
	return n
}

func objectAsJava(n node, depth int) node {
	entries := make([]mapEntry, 0, len(n.obj))
	vals := make(map[string]node, len(n.obj))
	for _, mb := range n.obj {
		if mb.val.kind == kNull {
			continue // Include.NON_NULL
		}
		if _, dup := vals[mb.key]; !dup {
			entries = append(entries, mapEntry{key: mb.key, hash: javaStringHash(mb.key)})
		}
		vals[mb.key] = mb.val
	}
	hashMapOrder(entries)
	out := node{kind: kObject, obj: make([]member, 0, len(entries)+1)}
	out.obj = append(out.obj, member{key: classKey, val: node{kind: kString, s: classHashMap}})
	for _, me := range entries {
		out.obj = append(out.obj, member{key: me.key, val: asJavaObject(vals[me.key], depth+1)})
	}
	return out
}

// plainJSON removes the type information of a typed codec from a value at
// an Object position: a ["<class>", value] wrapper gives its value, an
// object loses its "@class".
func plainJSON(n *node) node {
	if n.kind == kArray {
		if class, inner, ok := n.asWrapper(); ok && javaClassName.MatchString(class) {
			return plainContent(inner)
		}
	}
	return plainContent(n) // a plain array: a Java array of a final type
}

// plainContent removes the type information inside a value: the elements
// and properties, which are at Object positions. Only the first "@class" is
// the type id; a later one is a map entry.
func plainContent(n *node) node {
	switch n.kind {
	case kArray:
		out := node{kind: kArray, arr: make([]node, len(n.arr))}
		for i := range n.arr {
			out.arr[i] = plainJSON(&n.arr[i])
		}
		return out
	case kObject:
		out := node{kind: kObject, obj: make([]member, 0, len(n.obj))}
		typeID := true
		for i := range n.obj {
			if typeID && n.obj[i].key == classKey {
				typeID = false
				continue
			}
			out.obj = append(out.obj, member{key: n.obj[i].key, val: plainJSON(&n.obj[i].val)})
		}
		return out
	}
	return *n
}

// special decodes into the types with a mapping of their own, in the order
// encoding mapped them; t is addressable and n not null.
func (d *decoder) special(n *node, t reflect.Value) (bool, error) {
	rt := t.Type()
	switch mappingsOf(rt).dec {
	case byBuiltin:
		return true, d.builtin(n, t)
	case byJSON:
		if rt.Kind() == reflect.Struct && d.c.typed && n.kind == kObject {
			if _, registered := d.c.types.class(rt); registered {
				if err := d.checkClass(n, rt); err != nil {
					return true, err
				}
			}
		}
		if _, err := d.unwrap(n, rt); err != nil {
			return true, err
		}
		plain := *n
		if d.c.typed {
			plain = plainJSON(n)
		}
		data, err := (jsonFormat{}).write(&plain)
		if err == nil {
			err = t.Addr().Interface().(json.Unmarshaler).UnmarshalJSON(data)
		}
		if err != nil {
			return true, fmt.Errorf("UnmarshalJSON of %s: %w", rt, err)
		}
		return true, nil
	case byText:
		inner, err := d.unwrap(n, rt)
		if err != nil {
			return true, err
		}
		if inner.kind != kString {
			return true, mismatch(inner, rt)
		}
		if err := t.Addr().Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(inner.s)); err != nil {
			return true, fmt.Errorf("UnmarshalText of %s: %w", rt, err)
		}
		return true, nil
	}
	return false, nil
}

// unwrap returns the value of a ["<class>", value] wrapper decoded into rt
// (typed codecs): the class must be one of classes or rt's registered one.
// Anything else is returned as it is.
func (d *decoder) unwrap(n *node, rt reflect.Type, classes ...string) (*node, error) {
	if !d.c.typed {
		return n, nil
	}
	class, inner, ok := n.asWrapper()
	if !ok || !javaClassName.MatchString(class) {
		return n, nil
	}
	for _, c := range classes {
		if class == c {
			return inner, nil
		}
	}
	if want, registered := d.c.types.class(rt); registered {
		if class != want {
			return nil, wrongClass("%q, want %q for Go type %s", class, want, rt)
		}
		return inner, nil
	}
	if len(classes) == 0 {
		return inner, nil // a type of its own: the class is the writer's business
	}
	return nil, wrongClass("%q for Go type %s, want %q", class, rt, classes[0])
}

// numericClasses are the wrappers a number may come in.
var numericClasses = []string{classBigDecimal, classBigInt, classLong, classInteger, classShort, classByte, classDouble, classFloat}

// builtin decodes into the built-in types. Go reads more forms than Java
// does (a bare number or text for a Date), never fewer.
func (d *decoder) builtin(n *node, t reflect.Value) error {
	rt := t.Type()
	switch rt {
	case typeTime:
		return d.timeValue(n, t)
	case typeDuration:
		return unsupported(typeDuration, errDuration)
	case typeUUID:
		inner, err := d.unwrap(n, rt, classUUID)
		if err != nil {
			return err
		}
		var u uuid.UUID
		switch inner.kind {
		case kString:
			if u, err = uuid.Parse(inner.s); err != nil {
				return fmt.Errorf("%.40q is not a UUID: %w", inner.s, err)
			}
		case kBytes:
			if u, err = uuid.FromBytes(inner.bin); err != nil {
				return fmt.Errorf("binary UUID: %w", err)
			}
		default:
			return mismatch(inner, rt)
		}
		t.Set(reflect.ValueOf(u))
	case typeBigInt:
		inner, err := d.unwrap(n, rt, numericClasses...)
		if err != nil {
			return err
		}
		if inner.kind == kFloat || inner.kind == kDecimal {
			return mismatch(inner, rt)
		}
		x, err := bigIntValue(inner)
		if err != nil {
			return err
		}
		t.Addr().Interface().(*big.Int).Set(x)
	case typeBigFloat, typeDecimal:
		return d.decimalValue(n, t)
	}
	return nil
}

// timeValue decodes a java.util.Date, epoch milliseconds or a date text,
// into t, a time.Time.
func (d *decoder) timeValue(n *node, t reflect.Value) error {
	rt := t.Type()
	inner, err := d.unwrap(n, rt, classDate)
	if err != nil {
		return err
	}
	var tm time.Time
	switch inner.kind {
	case kInt:
		tm = time.UnixMilli(inner.i).UTC()
	case kString:
		if tm, err = parseDate(inner.s); err != nil {
			return err
		}
		// A Date holds milliseconds: what Java reads from this text,
		// and what encoding it again gives.
		tm = time.UnixMilli(tm.UnixMilli()).UTC()
	default:
		return mismatch(inner, rt)
	}
	t.Set(reflect.ValueOf(tm))
	return nil
}

// decimalValue decodes a number into t, a *big.Float's value or a Decimal.
func (d *decoder) decimalValue(n *node, t reflect.Value) error {
	rt := t.Type()
	inner, err := d.unwrap(n, rt, numericClasses...)
	if err != nil {
		return err
	}
	s, ok := numberText(inner)
	if !ok {
		return mismatch(inner, rt)
	}
	dec, ok := parseDecimal(s)
	if !ok {
		return fmt.Errorf("%.40q is not a decimal number", s)
	}
	if rt == typeDecimal {
		t.SetString(dec.plain())
		return nil
	}
	f := t.Addr().Interface().(*big.Float)
	if f.Prec() == 0 {
		f.SetPrec(bigFloatPrec(dec))
	}
	if _, _, err := f.Parse(dec.plain(), 10); err != nil {
		return fmt.Errorf("%.40q: %w", s, err)
	}
	return nil
}

// mapEntry is one map entry on its way out: its key as text, the hash Java
// gives the key's Java counterpart (which orders a HashMap), and the value.
type mapEntry struct {
	key    string
	hash   int32
	intKey bool  // ordered by number, not text
	signed bool  // with intKey: ordered by i, else by u
	i      int64 // with intKey
	u      uint64
	val    reflect.Value
}

// newMapEntry converts a map key as encoding/json does: a string kind as it
// is, else its MarshalText, else an integer in decimal.
func newMapEntry(k reflect.Value) (mapEntry, error) {
	var me mapEntry
	switch {
	case k.Kind() == reflect.String:
		me.key = k.String()
	default:
		kt := k.Type()
		if ptr := reflect.PointerTo(kt).Implements(typeTextMarshaler); ptr || kt.Implements(typeTextMarshaler) {
			text, err := method(k, !kt.Implements(typeTextMarshaler)).(encoding.TextMarshaler).MarshalText()
			if err != nil {
				return me, fmt.Errorf("map key: MarshalText of %s: %w", k.Type(), err)
			}
			me.key = string(text)
			if k.Type() == typeUUID {
				me.hash = javaUUIDHash(k.Interface().(uuid.UUID))
				return me, utf8Key(me.key)
			}
			break
		}
		switch k.Kind() {
		case reflect.Int8, reflect.Int16, reflect.Int32:
			// Byte, Short, Integer: hashCode is the value.
			me.key, me.hash, me.intKey, me.signed, me.i = strconv.FormatInt(k.Int(), 10), int32(k.Int()), true, true, k.Int()
			return me, nil
		case reflect.Uint8, reflect.Uint16:
			me.key, me.hash, me.intKey, me.u = strconv.FormatUint(k.Uint(), 10), int32(k.Uint()), true, k.Uint()
			return me, nil
		case reflect.Int, reflect.Int64:
			x := k.Int()
			// Long.hashCode: the two halves xor-ed.
			me.key, me.hash, me.intKey, me.signed, me.i = strconv.FormatInt(x, 10), int32(x^int64(uint64(x)>>32)), true, true, x
			return me, nil
		case reflect.Uint, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
			x := k.Uint()
			me.key, me.hash, me.intKey, me.u = strconv.FormatUint(x, 10), int32(x^x>>32), true, x
			return me, nil
		default:
			return me, unsupported(k.Type(), "not a map key type: a key must be a string, an integer or have MarshalText")
		}
	}
	me.hash = javaStringHash(me.key)
	return me, utf8Key(me.key)
}

func utf8Key(s string) error {
	if !utf8.ValidString(s) {
		return fmt.Errorf("map key %.40q is not UTF-8", s)
	}
	return nil
}

// javaUUIDHash is java.util.UUID.hashCode.
func javaUUIDHash(u uuid.UUID) int32 {
	var msb, lsb uint64
	for i := 0; i < 8; i++ {
		msb = msb<<8 | uint64(u[i])
		lsb = lsb<<8 | uint64(u[8+i])
	}
	x := msb ^ lsb
	return int32(x>>32) ^ int32(x)
}

// checkKeyType refuses map key types with no text form.
func checkKeyType(kt reflect.Type) error {
	switch {
	case kt.Kind() == reflect.String, reflect.PointerTo(kt).Implements(typeTextUnmarshaler):
		return nil
	case kt.Kind() >= reflect.Int && kt.Kind() <= reflect.Uintptr:
		return nil
	}
	return unsupported(kt, "not a map key type: a key must be a string, an integer or have UnmarshalText")
}

// parseMapKey converts a property name back to a key of type kt, as
// encoding/json does: UnmarshalText first, then a string kind, then an
// integer.
func parseMapKey(s string, kt reflect.Type) (reflect.Value, error) {
	k := reflect.New(kt).Elem()
	switch {
	case reflect.PointerTo(kt).Implements(typeTextUnmarshaler):
		if err := k.Addr().Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(s)); err != nil {
			return k, fmt.Errorf("map key: UnmarshalText of %s: %w", kt, err)
		}
	case kt.Kind() == reflect.String:
		k.SetString(s)
	case kt.Kind() >= reflect.Int && kt.Kind() <= reflect.Int64:
		x, err := strconv.ParseInt(s, 10, 64)
		if err != nil || k.OverflowInt(x) {
			return k, fmt.Errorf("map key %.40q is not a %s", s, kt)
		}
		k.SetInt(x)
	default:
		x, err := strconv.ParseUint(s, 10, 64)
		if err != nil || k.OverflowUint(x) {
			return k, fmt.Errorf("map key %.40q is not a %s", s, kt)
		}
		k.SetUint(x)
	}
	return k, nil
}
