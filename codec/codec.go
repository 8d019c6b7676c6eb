// Package codec turns Go values into the bytes Java Redisson's codecs store,
// and back, so a Go service and a Java service can share Redis values.
//
// A Codec has two methods: Encode a Go value to bytes, Decode bytes into a
// Go value (through a pointer, like encoding/json). The codecs mirror
// Redisson 3.52's, byte for byte:
//
//	Go                    Java (org.redisson...)               bytes
//	String()              client.codec.StringCodec             UTF-8 text
//	Long()                client.codec.LongCodec               decimal ASCII
//	ByteArray()           client.codec.ByteArrayCodec          the bytes as they are
//	JsonJackson(t)        codec.JsonJacksonCodec               JSON with Jackson default typing
//	TypedJsonJackson()    codec.TypedJsonJacksonCodec(Foo.class) JSON, no type information
//	MsgPackJackson(t)     codec.MsgPackJacksonCodec            JsonJackson's rules in MessagePack
//
// Redisson's default codec since 3.19, Kryo5Codec, is not portable: Kryo
// writes Java class ids and serializer state that only a JVM with the same
// classes and Kryo registration can read. A Java service that shares values
// with Go sets a portable codec, for example in its Config:
//
//	config.setCodec(new org.redisson.codec.JsonJacksonCodec());
//
// or per object: redisson.getBucket("name", JsonJacksonCodec.INSTANCE).
//
// # Java classes of Go types: a registry
//
// JsonJackson and MsgPackJackson write Java class names into the data
// (Jackson's default typing: an "@class" property, or a ["<class>", value]
// wrapper). The Java class of a Go struct is declared in a Types registry,
// not in a struct tag:
//
//	types := codec.NewTypes()
//	types.Register("com.example.Person", Person{})
//	c := codec.JsonJackson(types)
//
// A registry, because the class belongs to the type, not to a field: it is
// written wherever a value appears (at the top, in a slice, in a map, in an
// `any` field), and decoding needs the reverse lookup, class name → Go type,
// which only a registry can give (Go has no way to find a type by a tag).
// Registering also makes the set of types a peer may make us instantiate
// explicit. Struct tags describe fields only (see below).
//
// # How Go types map to Java types
//
// Jackson's default typing in Redisson writes type information for every
// non-final class and for java.lang.Long. The Go side follows the Java type
// each Go type stands for:
//
//	Go                          Java                     JSON written
//	string                      String                   "x"
//	bool                        boolean / Boolean        true
//	int32, uint16               int / Integer            42
//	int, int64, uint32, uint,   long (struct field)      42
//	uint64                      Long (anywhere else)     ["java.lang.Long",42]
//	*int64 (struct field)       Long                     ["java.lang.Long",42]
//	int16, uint8                short / Short            1, or ["java.lang.Short",1] as an Object
//	int8                        byte / Byte              1, or ["java.lang.Byte",1] as an Object
//	float64                     double / Double          1.5 (NaN: "NaN", ["java.lang.Double","NaN"] as an Object)
//	float32                     float / Float            1.5, or ["java.lang.Float",1.5] as an Object
//	[]byte, [N]byte             byte[]                   base64 text (MessagePack: bin)
//	[]T, [N]T                   java.util.ArrayList      ["java.util.ArrayList",[...]]
//	map[K]T                     java.util.HashMap        {"@class":"java.util.HashMap",...}
//	time.Time, *time.Time       java.util.Date           ["java.util.Date",1700000000123] (milliseconds)
//	uuid.UUID, *uuid.UUID       java.util.UUID           "0f8f...", or ["java.util.UUID","0f8f..."] as an Object
//	*big.Int                    java.math.BigInteger     ["java.math.BigInteger",123...]
//	Decimal, *big.Float         java.math.BigDecimal     ["java.math.BigDecimal",19.990]
//	registered struct           the registered class     {"@class":"com.example.Person",...}
//	registered string type      a Java enum              "RED", or ["com.example.Color","RED"] as an Object
//	json.Marshaler              what its JSON reads as   its JSON, objects as java.util.HashMap (or the registered class)
//	encoding.TextMarshaler      String (or the enum)     "its text"
//	any                         Object                   per the dynamic value
//
// java.util.Date, BigInteger and BigDecimal are not final, so they carry
// their class everywhere; UUID is final and carries it only as an Object,
// unless the codec has UUIDTypeInfo (Redisson 4.2+ writes it everywhere).
// TypedJsonJackson writes the same values without any class: a Date as
// epoch milliseconds, a UUID as text, numbers plain.
//
// Map keys are written as encoding/json writes them: a string kind as it
// is, else its MarshalText (uuid.UUID, netip.Addr), else an integer in
// decimal; the entries are ordered as a java.util.HashMap of the Java key
// type orders them (Integer and Long keys by their own hash codes).
//
// A type with its own MarshalJSON (or MarshalText) is written with the JSON
// (or text) it gives and read back with UnmarshalJSON (UnmarshalText), as
// encoding/json does; the built-in types above take precedence. In the typed
// codecs its JSON gets the type information Java needs to read the same data
// as Object values: objects become java.util.HashMaps (or carry the
// registered class), arrays java.util.ArrayLists, integers beyond an int
// Longs; decoding strips it again before UnmarshalJSON.
//
// "As an Object" means a value whose declared Java type is Object: an element
// of a slice or map, or a field of Go type any. A Go pointer stands for a
// boxed (nullable) Java type; a nil pointer, map, slice or interface is Java's
// null, and null properties are left out, as Redisson's mapper does
// (Include.NON_NULL, also for map values; slices keep their nulls).
// Properties are written in alphabetical order (SORT_PROPERTIES_ALPHABETICALLY);
// map entries in the iteration order of a java.util.HashMap filled by put(),
// so that a Go map encodes to the bytes Java stores for the same map (this
// matters for compare-and-set, which compares bytes).
//
// Struct fields: the property name comes from the `redisson` tag, else the
// `json` tag's name, else the Go name with its leading capitals lowered
// (ID → id, URLPath → urlPath, Name → name); "-" skips a field. Options in
// the redisson tag: "boxed" writes an integer field as a Java Long (what a
// Java `Long id` field needs; an int64 field is a primitive `long`), "array"
// writes a slice of strings, booleans or numbers as a Java array (String[],
// long[]: a plain JSON array). Getting boxed/primitive right matters: Jackson
// refuses a plain number for a Long field and a wrapper for a long field.
// Embedded structs, also through pointers, are flattened, as Java
// superclass fields are.
//
// The options omitempty and omitzero, in the json tag or the redisson tag,
// leave a field out exactly when encoding/json leaves it out: omitempty
// for false, 0, "", a nil pointer or interface, an empty slice, map or
// string; omitzero for the zero value or a true IsZero() (a zero
// time.Time, a zero uuid.UUID). A Java reader with Redisson's mapper
// (Include.NON_NULL) leaves a missing property at its Java default: null,
// or 0 for a primitive. Decoding a message without the property gives the
// field its Go zero value.
//
// Decoding a JsonJackson or MsgPackJackson value into an `any` gives: nil,
// bool, string, int32 (Integer), int64 (Long), *big.Int (BigInteger, also a
// plain integer beyond a long), float64 (Double), float32 (Float), int16,
// int8, []byte, time.Time (Date, in UTC), uuid.UUID (UUID), Decimal
// (BigDecimal), []any (any collection class), map[string]any (java.util
// maps), the registered Go type for a registered "@class" (a struct value,
// not a pointer), or, for an unknown class, a map[string]any that keeps its
// "@class" entry: encoding such a map writes it back as that class with its
// properties sorted, so unknown objects pass through. Other wrapped classes
// (an unregistered enum, java.time types written by another client...)
// decode to their plain value. A property of an unknown class may also hold
// a plain array (a Java array of a final type: String[], long[]), which
// decodes to []any. These two come back in another form when such a map is
// encoded again (a plain value, a java.util.ArrayList), which Java may refuse
// for that field: register the class to write it back exactly. Decoding into
// a registered struct requires the registered "@class"; another class is an
// error wrapping ErrWrongClass. Unknown properties are ignored, as
// Redisson's mapper does. Typed targets accept more than Java does (a bare
// number or RFC 3339 text for a time.Time, a plain array for a slice, a
// plain-text UUID where Redisson 4.2+ wants the wrapper), never less.
//
// # What no codec writes
//
// A value the Java peer could not read back with the same data is an error
// at Encode, wrapping ErrEncode and naming the Go type and the path to it
// (".items[2].when"), and nothing is written: funcs, channels, complex
// numbers, unsafe pointers and map keys without a text form (wrapping
// ErrUnsupportedType); time.Duration, because Redisson's mapper refuses
// java.time types and a bare number would leave the unit to guesswork
// (ErrUnsupportedType: store an integer of a stated unit); a struct that
// keeps data in unexported fields only and has no MarshalJSON or
// MarshalText, which would become an object without properties
// (ErrUnsupportedType; its zero value is written); and values beyond the
// Java type: an integer beyond a long, a time beyond a Date, text that is no
// Decimal, a big.Float infinity, and in MessagePack a BigInteger beyond 64
// bits or a BigDecimal MessagePack cannot give back digit for digit. A
// time.Time keeps milliseconds, as a Date does; a struct's unexported fields
// beside exported ones are left out, as encoding/json leaves them out.
//
// # What is not byte-identical
//
// Doubles are written in Java's Double.toString layout with the shortest
// digits that round-trip (what Java 19+ prints; Java 17 prints a longer form
// for a few rare values). Map entries whose keys fall in the same HashMap
// bucket are written in sorted order (Java: insertion order), and maps built
// by Java's copy constructors or with an initial capacity may iterate in
// another order. Java classes without a Go counterpart here (LinkedHashMap,
// TreeSet and other sets, Character, Java records, java.time types, which
// Redisson's mapper refuses) are not produced by the encoder: a Go map is a
// HashMap, a slice an ArrayList. None of this affects what either side
// reads, only byte comparisons. docs/codecs.md has the whole mapping and
// what differs between Redisson 3.52 and 4.7.
package codec

import (
	"encoding"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Codec encodes Go values to the bytes stored in Redis and decodes them
// back. Implementations are safe for concurrent use.
type Codec interface {
	// Encode returns the bytes stored for v.
	Encode(v any) ([]byte, error)
	// Decode stores the value encoded in data into the value v points to.
	Decode(data []byte, v any) error
}

var (
	// ErrEncode is wrapped by every error of Encode.
	ErrEncode = errors.New("codec: cannot encode")
	// ErrDecode is wrapped by every error of Decode.
	ErrDecode = errors.New("codec: cannot decode")
	// ErrWrongClass is wrapped (together with ErrDecode) when a value's Java
	// class does not match the Go type it is decoded into.
	ErrWrongClass = errors.New("codec: wrong Java class")
	// ErrUnsupportedType is wrapped (together with ErrEncode or ErrDecode)
	// when a Go type has no representation the Java peer would read back
	// with the same data: funcs, channels, complex numbers, unsafe
	// pointers, time.Duration, structs that keep their data in unexported
	// fields, map keys without a text form. The message names the type
	// and the path to it.
	ErrUnsupportedType = errors.New("codec: unsupported Go type")
)

// codecError is every error of Encode and Decode. It says the codec and
// the operation once ("codec JsonJackson: cannot decode: ..."), so that an
// object's prefix (`bucket "b": get: `) reads on without repeating either,
// and unwraps to both the operation's sentinel and the cause.
type codecError struct {
	op    error // ErrEncode or ErrDecode
	codec string
	err   error
}

func (e *codecError) Error() string {
	return "codec " + e.codec + ": " + bare(e.op) + ": " + e.err.Error()
}

func (e *codecError) Unwrap() []error { return []error{e.op, e.err} }

func encodeError(codec string, err error) error {
	return &codecError{op: ErrEncode, codec: codec, err: err}
}

func decodeError(codec string, err error) error {
	return &codecError{op: ErrDecode, codec: codec, err: err}
}

func encodeErrorf(codec, format string, a ...any) error {
	return encodeError(codec, fmt.Errorf(format, a...))
}

// typeError is ErrUnsupportedType for a value whose Go type a codec takes
// none of, so that errors.Is finds the sentinel whatever the codec.
type typeError struct{ msg string }

func (e *typeError) Error() string { return e.msg }
func (e *typeError) Unwrap() error { return ErrUnsupportedType }

func typeErrorf(format string, a ...any) error { return &typeError{fmt.Sprintf(format, a...)} }

func decodeErrorf(codec, format string, a ...any) error {
	return decodeError(codec, fmt.Errorf(format, a...))
}

// bare is a sentinel's text without the package prefix, which the
// codecError around it has already said.
func bare(sentinel error) string { return strings.TrimPrefix(sentinel.Error(), "codec: ") }

// detailError is a sentinel (ErrWrongClass) with the details of one case.
type detailError struct {
	sentinel error
	detail   string
}

func (e *detailError) Error() string { return bare(e.sentinel) + ": " + e.detail }

func (e *detailError) Unwrap() error { return e.sentinel }

// wrongClass is an error wrapping ErrWrongClass.
func wrongClass(format string, a ...any) error {
	return &detailError{sentinel: ErrWrongClass, detail: fmt.Sprintf(format, a...)}
}

// target returns the settable value a Decode argument points to.
func target(codec string, v any) (reflect.Value, error) {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return reflect.Value{}, decodeErrorf(codec, "Decode needs a non-nil pointer, got %T", v)
	}
	return rv.Elem(), nil
}

// scalarTarget is target for the codecs of one scalar: pointers on the way
// (a *string decoded through a **string) are allocated.
func scalarTarget(codec string, v any) (reflect.Value, error) {
	t, err := target(codec, v)
	if err != nil {
		return t, err
	}
	for t.Kind() == reflect.Pointer {
		if t.IsNil() {
			t.Set(reflect.New(t.Type().Elem()))
		}
		t = t.Elem()
	}
	return t, nil
}

// deref follows non-nil pointers: the codecs of one scalar encode what a
// pointer points to.
func deref(v any) any {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer {
		return v
	}
	for rv.Kind() == reflect.Pointer && !rv.IsNil() {
		rv = rv.Elem()
	}
	return rv.Interface()
}

// String returns Redisson's StringCodec: the UTF-8 bytes of a string.
//
// Encode accepts strings, []byte (written as they are), integers and
// booleans (in decimal and "true"/"false", as Java's toString), floats (in
// Java's Double.toString layout), a time.Time as Java's Instant.toString
// ("2023-11-14T22:13:20.123Z"), a time.Duration as Java's
// Duration.toString ("PT1.5S"), encoding.TextMarshaler (a uuid.UUID, a
// big.Int, a netip.Addr: their text) and fmt.Stringer. Decode stores into a
// *string, *[]byte or *any (a string), a *time.Duration (Java's
// Duration.toString text) or any encoding.TextUnmarshaler (a *time.Time
// reads RFC 3339, which Instant.toString writes). Bytes that are not UTF-8
// are kept as they are (Java would read U+FFFD in their place).
func String() Codec { return stringCodec{} }

type stringCodec struct{}

func (stringCodec) Encode(v any) ([]byte, error) {
	switch x := deref(v).(type) {
	case string:
		return []byte(x), nil
	case []byte:
		return append([]byte{}, x...), nil
	case time.Time:
		return []byte(instantString(x)), nil
	case time.Duration:
		return []byte(durationString(x)), nil
	case encoding.TextMarshaler:
		text, err := x.MarshalText()
		if err != nil {
			return nil, encodeErrorf("String", "MarshalText of %T: %v", x, err)
		}
		return text, nil
	case fmt.Stringer:
		return []byte(x.String()), nil
	case nil:
		return nil, encodeErrorf("String", "nil value (Java's null is stored by deleting the key)")
	}
	rv := reflect.ValueOf(deref(v))
	switch rv.Kind() {
	case reflect.String:
		return []byte(rv.String()), nil
	case reflect.Bool:
		return strconv.AppendBool(nil, rv.Bool()), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.AppendInt(nil, rv.Int(), 10), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return strconv.AppendUint(nil, rv.Uint(), 10), nil
	case reflect.Float32:
		return []byte(javaFloat(rv.Float(), 32)), nil
	case reflect.Float64:
		return []byte(javaFloat(rv.Float(), 64)), nil
	case reflect.Slice:
		if rv.Type().Elem().Kind() == reflect.Uint8 {
			return append([]byte{}, rv.Bytes()...), nil
		}
	}
	return nil, encodeError("String", unsupported(rv.Type(), "no text form (want a string, a number, a boolean, a time or a TextMarshaler)"))
}

func (stringCodec) Decode(data []byte, v any) error {
	t, err := scalarTarget("String", v)
	if err != nil {
		return err
	}
	switch {
	case t.Type() == typeDuration:
		d, err := parseDuration(string(data))
		if err != nil {
			return decodeErrorf("String", "%v", err)
		}
		t.SetInt(int64(d))
	case reflect.PointerTo(t.Type()).Implements(typeTextUnmarshaler):
		if err := t.Addr().Interface().(encoding.TextUnmarshaler).UnmarshalText(data); err != nil {
			return decodeErrorf("String", "UnmarshalText of %s: %v", t.Type(), err)
		}
	case t.Kind() == reflect.String:
		t.SetString(string(data))
	case t.Kind() == reflect.Slice && t.Type().Elem().Kind() == reflect.Uint8:
		t.SetBytes(append([]byte{}, data...))
	case t.Kind() == reflect.Interface && t.NumMethod() == 0:
		t.Set(reflect.ValueOf(string(data)))
	default:
		return decodeErrorf("String", "into Go type %s (want a string, []byte, any, time.Duration or a TextUnmarshaler)", t.Type())
	}
	return nil
}

// Long returns Redisson's LongCodec: a Java long in decimal ASCII ("42",
// "-7").
//
// Encode accepts any Go integer that fits a Java long. Decode parses like
// Java's Long.valueOf (optional sign, decimal digits, within int64) and
// stores into any Go integer (range checked) or *any (an int64).
func Long() Codec { return longCodec{} }

type longCodec struct{}

func (longCodec) Encode(v any) ([]byte, error) {
	rv := reflect.ValueOf(deref(v))
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.AppendInt(nil, rv.Int(), 10), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		if rv.Uint() > math.MaxInt64 {
			return nil, encodeErrorf("Long", "%d does not fit a Java long", rv.Uint())
		}
		return strconv.AppendUint(nil, rv.Uint(), 10), nil
	}
	return nil, encodeError("Long", typeErrorf("unsupported Go type %T (want an integer)", v))
}

func (longCodec) Decode(data []byte, v any) error {
	t, err := scalarTarget("Long", v)
	if err != nil {
		return err
	}
	n, err := parseJavaLong(data)
	if err != nil {
		return decodeErrorf("Long", "%v", err)
	}
	if t.Kind() == reflect.Interface && t.NumMethod() == 0 {
		t.Set(reflect.ValueOf(n))
		return nil
	}
	if err := setInt(t, n); err != nil {
		return decodeErrorf("Long", "%v", err)
	}
	return nil
}

// parseJavaLong parses like Java's Long.valueOf(String).
func parseJavaLong(data []byte) (int64, error) {
	if len(data) == 0 || len(data) > 20 {
		return 0, fmt.Errorf("%s is not a decimal long", quoteBytes(data))
	}
	for i, c := range data {
		if (c < '0' || c > '9') && !(i == 0 && (c == '-' || c == '+') && len(data) > 1) {
			return 0, fmt.Errorf("%s is not a decimal long", quoteBytes(data))
		}
	}
	n, err := strconv.ParseInt(string(data), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s is out of the range of a Java long", quoteBytes(data))
	}
	return n, nil
}

// quoteBytes quotes data for an error message, cut to 64 bytes.
func quoteBytes(data []byte) string {
	if len(data) > 64 {
		return strconv.Quote(string(data[:64])) + "..."
	}
	if utf8.Valid(data) {
		return strconv.Quote(string(data))
	}
	return fmt.Sprintf("%q", data)
}

// setInt stores n into an integer value t, checking its range.
func setInt(t reflect.Value, n int64) error {
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if t.OverflowInt(n) {
			return fmt.Errorf("%d overflows %s", n, t.Type())
		}
		t.SetInt(n)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		if n < 0 || t.OverflowUint(uint64(n)) {
			return fmt.Errorf("%d overflows %s", n, t.Type())
		}
		t.SetUint(uint64(n))
	default:
		return fmt.Errorf("an integer into Go type %s", t.Type())
	}
	return nil
}

// ByteArray returns Redisson's ByteArrayCodec: the bytes as they are.
//
// Encode accepts []byte and string. Decode stores a copy into a *[]byte,
// *string or *any (a []byte).
func ByteArray() Codec { return byteArrayCodec{} }

type byteArrayCodec struct{}

func (byteArrayCodec) Encode(v any) ([]byte, error) {
	v = deref(v)
	switch x := v.(type) {
	case []byte:
		return append([]byte{}, x...), nil
	case string:
		return []byte(x), nil
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Slice && rv.Type().Elem().Kind() == reflect.Uint8 {
		return append([]byte{}, rv.Bytes()...), nil
	}
	if rv.Kind() == reflect.String {
		return []byte(rv.String()), nil
	}
	return nil, encodeError("ByteArray", typeErrorf("unsupported Go type %T (want []byte)", v))
}

func (byteArrayCodec) Decode(data []byte, v any) error {
	t, err := scalarTarget("ByteArray", v)
	if err != nil {
		return err
	}
	switch {
	case t.Kind() == reflect.Slice && t.Type().Elem().Kind() == reflect.Uint8:
		t.SetBytes(append([]byte{}, data...))
	case t.Kind() == reflect.String:
		t.SetString(string(data))
	case t.Kind() == reflect.Interface && t.NumMethod() == 0:
		t.Set(reflect.ValueOf(append([]byte{}, data...)))
	default:
		return decodeErrorf("ByteArray", "into Go type %s (want []byte, a string or any)", t.Type())
	}
	return nil
}
