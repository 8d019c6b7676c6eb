package codec_test

import (
	"bytes"
	"errors"
	"math"
	"math/big"
	"reflect"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/goredisson/redisson/codec"
)

// The fuzz targets check, per codec, that
//   - decoding any input either fails with an error wrapping ErrDecode or
//     gives a value that encodes again, and whose encoding is stable:
//     encode(decode(encode(v))) == encode(v) and decode(encode(v)) == v;
//   - a value built from the fuzzed scalars survives decode(encode(v)).
// Seeds are committed under testdata/fuzz/<target>/: Java's bytes from
// codecs.json, garbage, truncated MessagePack, wrong classes, huge length
// prefixes. Run one with: go test ./codec -run '^$' -fuzz FuzzMsgPackJackson -fuzztime 1m

func FuzzString(f *testing.F) {
	f.Add([]byte("héllo"), "x")
	f.Add([]byte{0xff, 0x00}, "")
	f.Fuzz(func(t *testing.T, data []byte, s string) {
		c := codec.String()
		var got string
		if err := c.Decode(data, &got); err != nil {
			t.Fatal(err)
		}
		back, err := c.Encode(got)
		if err != nil || !bytes.Equal(back, data) {
			t.Fatalf("encode(decode(%q)) = %q, %v", data, back, err)
		}
		roundTrip(t, c, s)
	})
}

func FuzzLong(f *testing.F) {
	f.Add([]byte("42"), int64(-7))
	f.Add([]byte("+9223372036854775807"), int64(math.MinInt64))
	f.Add([]byte("99999999999999999999"), int64(0))
	f.Fuzz(func(t *testing.T, data []byte, n int64) {
		c := codec.Long()
		var got int64
		if err := c.Decode(data, &got); err != nil {
			if !errors.Is(err, codec.ErrDecode) {
				t.Fatalf("error does not wrap ErrDecode: %v", err)
			}
		} else {
			roundTrip(t, c, got)
		}
		roundTrip(t, c, n)
	})
}

func FuzzByteArray(f *testing.F) {
	f.Add([]byte{0, 1, 2})
	f.Fuzz(func(t *testing.T, data []byte) {
		c := codec.ByteArray()
		var got []byte
		if err := c.Decode(data, &got); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, data) {
			t.Fatalf("decode(%x) = %x", data, got)
		}
		roundTrip(t, c, append([]byte{}, data...))
	})
}

func FuzzJsonJackson(f *testing.F) {
	fuzzJackson(f, codec.JsonJackson(testTypes()), true)
}

func FuzzMsgPackJackson(f *testing.F) {
	fuzzJackson(f, codec.MsgPackJackson(testTypes()), true)
}

func FuzzTypedJsonJackson(f *testing.F) {
	fuzzJackson(f, codec.TypedJsonJackson(), false)
}

func fuzzJackson(f *testing.F, c codec.Codec, typed bool) {
	f.Add([]byte(`["java.lang.Long",42]`), "Ann", int64(7), 1.5, true)
	f.Add([]byte{0x92, 0xae}, "", int64(math.MinInt64), math.NaN(), false)
	f.Fuzz(func(t *testing.T, data []byte, s string, n int64, x float64, b bool) {
		var v any
		if err := c.Decode(data, &v); err != nil {
			if !errors.Is(err, codec.ErrDecode) {
				t.Fatalf("error does not wrap ErrDecode: %v", err)
			}
		} else {
			stable(t, c, v, typed)
		}
		// Decoding into a struct must not panic either.
		var o Order
		_ = c.Decode(data, &o)

		if !utf8.ValidString(s) {
			if _, err := c.Encode(s); !errors.Is(err, codec.ErrEncode) {
				t.Fatalf("encoding a non-UTF-8 string: %v", err)
			}
			return
		}
		order := Order{Base: Base{Version: n}, ID: n, Qty: int32(n), Total: x, Ratio: float32(x), Small: int16(n),
			Codes: []int64{n}, Lines: []string{s}, Counts: map[string]int64{s: n}, Ship: &Address{City: s, Zip: &n},
			Color: Color(s), Colors: []Color{Color(s)}, Blob: []byte(s), Note: &s, Nested: map[string][]int16{s: {int16(n)}}}
		if math.IsNaN(x) || math.IsInf(x, 0) || math.Abs(x) > math.MaxFloat32 {
			order.Ratio = 0 // float32(x) would not round-trip as a float64 comparison
		}
		if typed {
			order.Extra = []any{s, n, int32(n), x, b, nil, int16(n), float32(order.Ratio), []byte(s), Color(s)}
			roundTrip(t, c, []any{s, n, x, b, map[string]any{s: n, "k": []any{x}}})
		} else {
			order.Extra = map[string]any{"s": s, "b": b}
		}
		roundTrip(t, c, order)
		roundTrip(t, c, s)
		roundTrip(t, c, n)
	})
}

// roundTrip checks decode(encode(v)) == v in v's own Go type.
func roundTrip(t *testing.T, c codec.Codec, v any) {
	t.Helper()
	data, err := c.Encode(v)
	if err != nil {
		t.Fatalf("encode %#v: %v", v, err)
	}
	p := reflect.New(reflect.TypeOf(v))
	if err := c.Decode(data, p.Interface()); err != nil {
		t.Fatalf("decode %q (from %#v): %v", data, v, err)
	}
	if !same(v, p.Elem().Interface()) {
		t.Fatalf("decode(encode(%#v)) = %#v (bytes %q)", v, p.Elem().Interface(), data)
	}
}

// stable checks a decoded value: as an Object (in a list, where every Java
// type keeps its type information) it encodes, decodes to itself, and
// encodes to the same bytes again.
func stable(t *testing.T, c codec.Codec, v any, typed bool) {
	t.Helper()
	in := []any{v}
	data, err := c.Encode(in)
	if err != nil {
		if !errors.Is(err, codec.ErrEncode) {
			t.Fatalf("error does not wrap ErrEncode: %v", err)
		}
		return // e.g. an integer beyond a Java long
	}
	var back any
	if err := c.Decode(data, &back); err != nil {
		t.Fatalf("decode %q (from %#v): %v", data, in, err)
	}
	again, err := c.Encode(back)
	if err != nil {
		t.Fatalf("encode %#v: %v", back, err)
	}
	if !bytes.Equal(data, again) {
		t.Fatalf("unstable encoding:\n%q\n%q", data, again)
	}
	if typed && !same(dropNulls(in), back) {
		t.Fatalf("decode(encode(%#v)) = %#v", in, back)
	}
}

// dropNulls removes nil map values, which Redisson's mapper does not write.
func dropNulls(v any) any {
	switch x := v.(type) {
	case []any:
		out := make([]any, len(x))
		for i := range x {
			out[i] = dropNulls(x[i])
		}
		return out
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			if e != nil {
				out[k] = dropNulls(e)
			}
		}
		return out
	}
	return v
}

func hasExported(fields []reflect.StructField) bool {
	for _, f := range fields {
		if f.IsExported() {
			return true
		}
	}
	return false
}

// addr returns a pointer to v, or to a copy of it.
func addr(v reflect.Value) reflect.Value {
	if v.CanAddr() {
		return v.Addr()
	}
	p := reflect.New(v.Type())
	p.Elem().Set(v)
	return p
}

// same is reflect.DeepEqual with NaN equal to NaN, times equal when they
// are the same instant and big numbers by value.
func same(a, b any) bool {
	return sameValue(reflect.ValueOf(a), reflect.ValueOf(b))
}

func sameValue(a, b reflect.Value) bool {
	if a.IsValid() != b.IsValid() {
		return false
	}
	if !a.IsValid() {
		return true
	}
	if a.Type() != b.Type() {
		return false
	}
	// Types whose state is not in exported fields: compared by value.
	switch a.Type() {
	case reflect.TypeFor[time.Time]():
		return a.Interface().(time.Time).Equal(b.Interface().(time.Time))
	case reflect.TypeFor[big.Int]():
		return addr(a).Interface().(*big.Int).Cmp(addr(b).Interface().(*big.Int)) == 0
	case reflect.TypeFor[big.Float]():
		// A big.Float travels as its shortest decimal and comes back with
		// the precision that decimal needs.
		return addr(a).Interface().(*big.Float).Text('e', -1) == addr(b).Interface().(*big.Float).Text('e', -1)
	}
	switch a.Kind() {
	case reflect.Float32, reflect.Float64:
		x, y := a.Float(), b.Float()
		return x == y || (math.IsNaN(x) && math.IsNaN(y))
	case reflect.Interface, reflect.Pointer:
		if a.IsNil() || b.IsNil() {
			return a.IsNil() == b.IsNil()
		}
		return sameValue(a.Elem(), b.Elem())
	case reflect.Slice:
		if a.IsNil() != b.IsNil() || a.Len() != b.Len() {
			return false
		}
		for i := 0; i < a.Len(); i++ {
			if !sameValue(a.Index(i), b.Index(i)) {
				return false
			}
		}
		return true
	case reflect.Map:
		if a.IsNil() != b.IsNil() || a.Len() != b.Len() {
			return false
		}
		for _, k := range a.MapKeys() {
			if !sameValue(a.MapIndex(k), b.MapIndex(k)) {
				return false
			}
		}
		return true
	case reflect.Struct:
		if exported := reflect.VisibleFields(a.Type()); !hasExported(exported) && a.CanInterface() {
			return reflect.DeepEqual(a.Interface(), b.Interface()) // a type with its own JSON or text
		}
		for i := 0; i < a.NumField(); i++ {
			if a.Type().Field(i).IsExported() && !sameValue(a.Field(i), b.Field(i)) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(a.Interface(), b.Interface())
}
