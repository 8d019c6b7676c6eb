package codec_test

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"os"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson/codec"
)

// The Go twins of codecs2.json's Java classes (org.goredisson.interop,
// declared in the capture program): enum Status, Item and Order.
type (
	Status string

	Item struct {
		Sku   string     `json:"sku"`   // String
		Qty   *int32     `json:"qty"`   // Integer
		Price *int64     `json:"price"` // Long
		Ref   *uuid.UUID `json:"ref"`   // UUID
	}

	JavaOrder struct {
		ID      *uuid.UUID     `json:"id"`      // UUID
		Created *time.Time     `json:"created"` // Date
		Amount  *codec.Decimal `json:"amount"`  // BigDecimal
		Big     *big.Int       `json:"big"`     // BigInteger
		Status  *Status        `json:"status"`  // Status
		Blob    []byte         `json:"blob"`    // byte[]
		Items   []Item         `json:"items"`   // List<Item>
		Attrs   map[string]any `json:"attrs"`   // Map<String, Object>
		Tags    []string       `json:"tags"`    // Set<String>
		Note    *string        `json:"note"`    // String
		Qty     *int32         `json:"qty"`     // Integer
		Total   *int64         `json:"total"`   // Long
		Count   int64          `json:"count"`   // long
		N       int32          `json:"n"`       // int
		Ratio   float64        `json:"ratio"`   // double
		Main    *Item          `json:"main"`    // Item
	}
)

const (
	statusClass = "org.goredisson.interop.Status"
	itemClass   = "org.goredisson.interop.Item"
	orderClass  = "org.goredisson.interop.Order"
)

var (
	sampleUUID = uuid.MustParse("0f8fad5b-d9cb-469f-a165-70867728950e")
	sampleTime = time.UnixMilli(1700000000123).UTC()
)

func interop2Types() *codec.Types {
	return codec.NewTypes().
		MustRegister(statusClass, Status("")).
		MustRegister(itemClass, Item{}).
		MustRegister(orderClass, JavaOrder{})
}

// sampleJavaOrder is the Order both POJO scenarios write.
func sampleJavaOrder() JavaOrder {
	return JavaOrder{
		ID: ptr(sampleUUID), Created: ptr(sampleTime), Amount: ptr(codec.Decimal("19.990")),
		Big: bigInt("12345678901234567890"), Status: ptr(Status("ACTIVE")), Blob: []byte{1, 2, 3, 0xff},
		Items: []Item{{Sku: "a", Qty: ptr(int32(1)), Price: ptr(int64(100))}, {Sku: "b", Qty: ptr(int32(2))}},
		Attrs: map[string]any{"s": "v", "i": int32(1), "l": int64(2), "u": sampleUUID, "d": sampleTime},
		Tags:  []string{"x", "y"}, Qty: ptr(int32(3)), Total: ptr(int64(5000000000)), Count: 7, N: -1, Ratio: 0.5,
		Main: &Item{Sku: "m", Qty: ptr(int32(9)), Price: ptr(int64(1))},
	}
}

// noGo marks a Java value Go has no type for; the reason is reported.
type noGo string

// setValues is the Go value for the java_value of each set step, by object.
func setValues() map[string]any {
	return map[string]any{
		"c2:date":           sampleTime,
		"c2:instant":        noGo("java.time.Instant: a Go time.Time is a java.util.Date"),
		"c2:ldt":            noGo("java.time.LocalDateTime: no Go type"),
		"c2:ld":             noGo("java.time.LocalDate: no Go type"),
		"c2:lt":             noGo("java.time.LocalTime: no Go type"),
		"c2:odt":            noGo("java.time.OffsetDateTime: a Go time.Time is a java.util.Date"),
		"c2:zdt":            noGo("java.time.ZonedDateTime: a Go time.Time is a java.util.Date"),
		"c2:duration":       1500 * time.Millisecond,
		"c2:typed-date":     sampleTime,
		"c2:typed-instant":  noGo("java.time.Instant: a Go time.Time is a java.util.Date"),
		"c2:uuid":           sampleUUID,
		"c2:uuid-map":       map[string]any{"u": sampleUUID},
		"c2:uuid-list":      []any{sampleUUID, "s"},
		"c2:uuid-pojo":      Item{Sku: "u", Qty: ptr(int32(1)), Ref: ptr(sampleUUID)},
		"c2:typed-uuid":     sampleUUID,
		"c2:bigdec":         codec.Decimal("12345.678900"),
		"c2:bigdec-exp":     codec.Decimal("1E+3"),
		"c2:bigdec-small":   codec.Decimal("-0.000001"),
		"c2:bigint":         bigInt("123456789012345678901234567890"),
		"c2:int-max":        int32(math.MaxInt32),
		"c2:int-min":        int32(math.MinInt32),
		"c2:long-2p31":      int64(2147483648),
		"c2:long-max":       int64(math.MaxInt64),
		"c2:long-min":       int64(math.MinInt64),
		"c2:short":          int16(7),
		"c2:byte":           int8(-1),
		"c2:float":          float32(1.25),
		"c2:double-tenth":   0.1,
		"c2:double-big":     1e300,
		"c2:double-negzero": math.Copysign(0, -1),
		"c2:double-nan":     math.NaN(),
		"c2:double-inf":     math.Inf(1),
		"c2:double-neginf":  math.Inf(-1),
		"c2:enum":           Status("ACTIVE"),
		"c2:bytes":          []byte{1, 2, 3, 0xff},
		"c2:char":           "é", // Java Character: a Go string of one character
		"c2:unicode":        "héllo wörld — 日本語 😀",
		"c2:control":        "tab\tnl\nquote\"bs\\nul\x00del\x7f",
		"c2:order":          sampleJavaOrder(),
		"c2:typed-order":    sampleJavaOrder(),
		"c2:typed-bigdec":   codec.Decimal("12345.678900"),
		"c2:typed-long":     int64(math.MaxInt64),
		"s:instant":         sampleTime,
		"s:date":            noGo("Date.toString in the JVM's zone: a Go time.Time is written as Instant.toString"),
		"s:uuid":            sampleUUID,
		"s:bigdec":          codec.Decimal("12345.678900"),
		"s:emoji":           "héllo 😀",
		"l:max":             int64(math.MaxInt64),
		"l:min":             int64(math.MinInt64),
		"l:int":             int32(7),
	}
}

// expectedValues is the Go value for the expected_java_value of a get step
// that reads bytes another client wrote.
func expectedValues() map[string]any {
	return map[string]any{
		"new Date(1700000000123L)":                   sampleTime,
		"new Date(1700000000000L)":                   time.UnixMilli(1700000000000).UTC(),
		"new Date(1699920000000L)":                   time.UnixMilli(1699920000000).UTC(),
		"UUID":                                       sampleUUID,
		`Item{sku="u", qty=1, price=null, ref=UUID}`: Item{Sku: "u", Qty: ptr(int32(1)), Ref: ptr(sampleUUID)},
		"42 (Integer)":                               int32(42),
		"2147483648L (Long)":                         int64(2147483648),
		"Long.MAX_VALUE":                             int64(math.MaxInt64),
		"BigInteger 2^63":                            bigInt("9223372036854775808"),
		"12345.6789d (Double)":                       12345.6789,
		`new BigDecimal("12345.678900")`:             codec.Decimal("12345.678900"),
		"42L (Long)":                                 int64(42),
		"Status.ACTIVE":                              Status("ACTIVE"),
		`"😀 é"`:                                      "😀 é",
		"byte[]{1,2,3,0xff}":                         []byte{1, 2, 3, 0xff},
		"1700000000123L":                             int64(1700000000123),
		"5L":                                         int64(5),
	}
}

// goTypes is the Go type a value of a Java class decodes to.
var goTypes = map[string]reflect.Type{
	"java.lang.String":     reflect.TypeFor[string](),
	"java.lang.Integer":    reflect.TypeFor[int32](),
	"java.lang.Long":       reflect.TypeFor[int64](),
	"java.lang.Double":     reflect.TypeFor[float64](),
	"java.lang.Boolean":    reflect.TypeFor[bool](),
	"java.math.BigInteger": reflect.TypeFor[big.Int](),
	"java.math.BigDecimal": reflect.TypeFor[codec.Decimal](),
	"java.util.Date":       reflect.TypeFor[time.Time](),
	"java.util.UUID":       reflect.TypeFor[uuid.UUID](),
	"java.util.HashMap":    reflect.TypeFor[map[string]any](),
	"java.util.ArrayList":  reflect.TypeFor[[]any](),
	"[B":                   reflect.TypeFor[[]byte](),
	statusClass:            reflect.TypeFor[Status](),
	itemClass:              reflect.TypeFor[Item](),
	orderClass:             reflect.TypeFor[JavaOrder](),
}

// typedTargets is the Go type standing for the class of a
// TypedJsonJacksonCodec(X).
var typedTargets = map[string]reflect.Type{
	"Date": reflect.TypeFor[time.Time](), "UUID": reflect.TypeFor[uuid.UUID](), "Order": reflect.TypeFor[JavaOrder](),
	"BigDecimal": reflect.TypeFor[codec.Decimal](), "Long": reflect.TypeFor[int64](), "Status": reflect.TypeFor[Status](),
	"byte[]": reflect.TypeFor[[]byte](),
}

// javaRefused is what Go does with bytes Java's get refused.
type javaRefused struct {
	into   reflect.Type
	err    error // the error Go gives; nil: Go reads them
	want   any   // what Go reads (when err is nil); nil: the 3.52.0 record's result for the same step
	reason string
}

func refusals(v47 bool) map[string]javaRefused {
	order := reflect.TypeFor[JavaOrder]()
	m := map[string]javaRefused{
		"codec2.json_time_go_bytes#14": {into: reflect.TypeFor[time.Time](), err: codec.ErrWrongClass,
			reason: "java.time.Instant is not the Date a time.Time stands for"},
		"codec2.json_numbers#83":    {into: reflect.TypeFor[any](), err: codec.ErrDecode, reason: "bare NaN is not JSON"},
		"codec2.json_pojo_nested#5": {into: order, err: codec.ErrWrongClass, reason: `no "@class"`},
		"codec2.json_pojo_nested#8": {into: order, reason: "Go reads a bare epoch-ms number for a Date field",
			want: JavaOrder{ID: ptr(sampleUUID), Created: ptr(sampleTime), Amount: ptr(codec.Decimal("19.990")),
				Status: ptr(Status("ACTIVE")), Total: ptr(int64(5000000000)), Qty: ptr(int32(3)), N: -1}},
		"codec2.json_pojo_nested#14": {into: order, reason: "Go reads a plain JSON array for a List field",
			want: JavaOrder{Items: []Item{{Sku: "a", Qty: ptr(int32(1)), Price: ptr(int64(100))}}}},
		"codec2.string_long#32": {into: reflect.TypeFor[int64](), err: codec.ErrDecode, reason: "Long.valueOf refuses 5.0"},
		"codec2.string_long#35": {into: reflect.TypeFor[int64](), err: codec.ErrDecode, reason: "Long.valueOf refuses a space"},
		"codec2.string_long#38": {into: reflect.TypeFor[int64](), err: codec.ErrDecode, reason: "2^63 is beyond a long"},
	}
	if v47 {
		// 4.7 refuses a UUID field written as plain text; Go reads it as 3.52 did.
		m["codec2.json_uuid#26"] = javaRefused{into: reflect.TypeFor[Item](), reason: "Go reads a plain-text UUID field (4.7 refuses it)"}
		m["codec2.json_pojo_nested#11"] = javaRefused{into: order, reason: "Go reads a plain-text UUID field (4.7 refuses it)"}
		r := m["codec2.json_pojo_nested#8"]
		r.reason += "; and a plain-text UUID field (4.7 refuses it)"
		m["codec2.json_pojo_nested#8"] = r
	}
	return m
}

// byteExceptions gives, for the set steps Go cannot write byte for byte,
// the bytes Go writes instead, derived from Java's, and why.
func byteExceptions(object string, java string) (string, string, bool) {
	const javaAttrs = `"attrs":{"@class":"java.util.LinkedHashMap","s":"v","i":1,"l":["java.lang.Long",2],` +
		`"u":["java.util.UUID","0f8fad5b-d9cb-469f-a165-70867728950e"],"d":["java.util.Date",1700000000123]}`
	const goAttrs = `"attrs":{"@class":"java.util.HashMap","s":"v","d":["java.util.Date",1700000000123],` +
		`"u":["java.util.UUID","0f8fad5b-d9cb-469f-a165-70867728950e"],"i":1,"l":["java.lang.Long",2]}`
	switch object {
	case "c2:order":
		if !strings.Contains(java, javaAttrs) {
			return "", "", false
		}
		return strings.NewReplacer(javaAttrs, goAttrs, `"tags":["java.util.TreeSet",`, `"tags":["java.util.ArrayList",`).Replace(java),
			"a Go map is a java.util.HashMap in HashMap order (Java: a LinkedHashMap in insertion order), " +
				"a Go slice a java.util.ArrayList (Java: a TreeSet)", true
	case "c2:typed-order":
		const javaTyped = `"attrs":{"s":"v","i":1,"l":2,"u":"0f8fad5b-d9cb-469f-a165-70867728950e","d":1700000000123}`
		const goTyped = `"attrs":{"s":"v","d":1700000000123,"u":"0f8fad5b-d9cb-469f-a165-70867728950e","i":1,"l":2}`
		return strings.Replace(java, javaTyped, goTyped, 1), "a Go map is written in HashMap order (Java: LinkedHashMap insertion order)", true
	}
	return "", "", false
}

// recordFile is a vector file read with exact numbers.
type recordFile struct {
	RedissonVersion string `json:"redisson_version"`
	Scenarios       []struct {
		Name  string           `json:"name"`
		Steps []map[string]any `json:"steps"`
	} `json:"scenarios"`
}

func loadRecords(t testing.TB, path string) *recordFile {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber() // ±2^63 and BigIntegers stay exact
	var f recordFile
	require.NoError(t, d.Decode(&f))
	return &f
}

// recordPaths are the codecs2.json files of both versions, copied from
// shared/interop-vectors.
var recordPaths = map[string]string{
	"3.52.0": "testdata/interop-vectors/codecs2.json",
	"4.7.0":  "testdata/interop-vectors/redisson-4.7.0/codecs2.json",
}

func codec2ByName(t testing.TB, name string, v47 bool) (codec.Codec, reflect.Type) {
	t.Helper()
	var opts []codec.Option
	if v47 {
		opts = append(opts, codec.UUIDTypeInfo())
	}
	switch {
	case name == "JsonJacksonCodec":
		return codec.JsonJackson(interop2Types(), opts...), nil
	case name == "StringCodec":
		return codec.String(), nil
	case name == "LongCodec":
		return codec.Long(), nil
	case strings.HasPrefix(name, "TypedJsonJacksonCodec("):
		class := strings.TrimSuffix(strings.TrimPrefix(name, "TypedJsonJacksonCodec("), ")")
		return codec.TypedJsonJackson(), typedTargets[class]
	}
	t.Fatalf("no Go codec for %s", name)
	return nil, nil
}

// TestVectors2 replays codecs2.json of Redisson 3.52.0 and 4.7.0 without
// Redis: each set step's Go value encodes to exactly the bytes Java stored
// (or Go refuses what Java refused), and the bytes of each get step decode
// in Go to the value Java read, of the Go type of Java's class, with the
// same equality to the value written or expected. Where Go differs, the
// step is listed with its reason.
func TestVectors2(t *testing.T) {
	for _, version := range []string{"3.52.0", "4.7.0"} {
		t.Run(version, func(t *testing.T) {
			f := loadRecords(t, recordPaths[version])
			require.Equal(t, version, f.RedissonVersion)
			base := f
			if version != "3.52.0" {
				base = loadRecords(t, recordPaths["3.52.0"])
			}
			v47 := version == "4.7.0"
			sets, expected, refused := setValues(), expectedValues(), refusals(v47)
			counts := map[string]int{}
			var notes []string
			for si, sc := range f.Scenarios {
				written := map[string]any{}
				for i, st := range sc.Steps {
					if st["kind"] != "call" {
						continue
					}
					id := fmt.Sprintf("%s#%s", sc.Name, st["step"])
					args := st["args"].(map[string]any)
					c, typedInto := codec2ByName(t, args["codec"].(string), v47)
					object := st["object"].(string)
					switch st["op"] {
					case "set":
						v, ok := sets[object]
						require.True(t, ok, "%s: no Go value for %s", id, object)
						if why, ok := v.(noGo); ok {
							counts["set: no Go counterpart"]++
							notes = append(notes, fmt.Sprintf("%s %s: %s", id, object, why))
							continue
						}
						written[object] = v
						got, err := c.Encode(v)
						if st["ok"] != true {
							require.ErrorIs(t, err, codec.ErrUnsupportedType, "%s: Java refused %s", id, args["java_value"])
							counts["set: refused like Java"]++
							continue
						}
						require.NoError(t, err, id)
						java := storedBytes(t, st, object)
						if want, why, ok := byteExceptions(object, string(java)); ok {
							require.Equal(t, want, string(got), "%s: Go's bytes", id)
							back := reflect.New(reflect.TypeOf(v))
							require.NoError(t, c.Decode(java, back.Interface()), id)
							read := v
							if object == "c2:typed-order" {
								// Without type information Map<String,Object> values
								// come back as Java reads them too (Integer, String, Long).
								o := sampleJavaOrder()
								o.Attrs = map[string]any{"s": "v", "i": int32(1), "l": int32(2), "u": sampleUUID.String(), "d": int64(1700000000123)}
								read = o
							}
							require.True(t, same(read, back.Elem().Interface()), "%s: Java's bytes decode to the value written", id)
							counts["set: same data, other bytes"]++
							notes = append(notes, fmt.Sprintf("%s %s: %s", id, object, why))
							continue
						}
						require.Equal(t, hex.EncodeToString(java), hex.EncodeToString(got), "%s %s:\nJava %s\nGo   %s", id, object, java, got)
						counts["set: identical bytes"]++
					case "get":
						data := storedBytes(t, st, object)
						if st["ok"] != true {
							r, ok := refused[id]
							require.True(t, ok, "%s: Java refused; no Go expectation", id)
							p := reflect.New(r.into)
							err := c.Decode(data, p.Interface())
							if r.err != nil {
								require.ErrorIs(t, err, r.err, id)
								require.ErrorIs(t, err, codec.ErrDecode, id)
								counts["get: refused like Java"]++
								continue
							}
							require.NoError(t, err, id)
							want := r.want
							if want == nil {
								res := base.Scenarios[si].Steps[i]["result"].(map[string]any)
								require.Equal(t, norm(res["value"]), render(p.Elem()), "%s: as 3.52.0 read it", id)
							} else {
								require.True(t, same(want, p.Elem().Interface()), "%s: got %#v", id, p.Elem().Interface())
							}
							counts["get: Go reads what Java refused"]++
							notes = append(notes, fmt.Sprintf("%s: %s", id, r.reason))
							continue
						}
						res := st["result"].(map[string]any)
						class := res["class"].(string)
						into := typedInto
						if into == nil {
							into = goTypes[class]
							require.NotNil(t, into, "%s: no Go type for %s", id, class)
							var a any
							require.NoError(t, c.Decode(data, &a), id)
							require.Equal(t, into, derefType(reflect.TypeOf(a)), "%s: Go type of a %s", id, class)
							checkDecoded(t, id, res, reflect.ValueOf(&a).Elem())
							if types, ok := res["types"]; ok {
								checkTypes(t, id, types, reflect.ValueOf(a))
							}
						}
						p := reflect.New(into)
						require.NoError(t, c.Decode(data, p.Interface()), id)
						checkDecoded(t, id, res, p.Elem())
						if types, ok := res["types"]; ok {
							checkTypes(t, id, types, p.Elem())
						}
						// equals_written / equals_expected: Go's value equals the same one
						var other any
						var have bool
						key := "equals_written"
						if e, ok := args["expected_java_value"]; ok {
							other, have = expected[e.(string)]
							require.True(t, have, "%s: no Go value for %s", id, e)
							key = "equals_expected"
						} else {
							other, have = written[object]
						}
						if javaEq, ok := res[key]; ok && have {
							got := p.Elem().Interface()
							if typedInto == nil {
								// Java compares the Object it read: Go's any.
								var a any
								require.NoError(t, c.Decode(data, &a), id)
								got = a
							}
							goEq := same(other, got)
							if id == "codec2.json_enum_bytes_strings#8" {
								// A Character is a one-character Go string.
								require.NotEqual(t, javaEq, goEq, id)
								notes = append(notes, id+": equality differs (a Java Character is a Go string)")
							} else {
								require.Equal(t, javaEq, goEq, "%s: %s (Go value %#v)", id, key, got)
							}
						}
						counts["get: decoded as Java"]++
					}
				}
			}
			nSet, nGet := 0, 0
			for k, n := range counts {
				if strings.HasPrefix(k, "set") {
					nSet += n
				} else {
					nGet += n
				}
			}
			require.Equal(t, 50, nSet, "set steps")
			require.Equal(t, 83, nGet, "get steps")
			keys := make([]string, 0, len(counts))
			for k := range counts {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				t.Logf("%s: %d", k, counts[k])
			}
			for _, n := range notes {
				t.Logf("  %s", n)
			}
		})
	}
}

func derefType(t reflect.Type) reflect.Type {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

// storedBytes returns the bytes the record shows stored under object.
func storedBytes(t *testing.T, st map[string]any, object string) []byte {
	t.Helper()
	state := st["state"].(map[string]any)[object].(map[string]any)
	b, err := hex.DecodeString(state["hex"].(string))
	require.NoError(t, err)
	return b
}

// checkDecoded compares a decoded value with Java's rendering of what it
// read. StringCodec's U+FFFD is where Go keeps the bytes that are not UTF-8.
func checkDecoded(t *testing.T, id string, res map[string]any, v reflect.Value) {
	t.Helper()
	got := render(v)
	if s, ok := got.(string); ok && id == "codec2.string_long#41" {
		require.NotEqual(t, norm(res["value"]), s, "%s: Go keeps the bytes", id)
		got = strings.ToValidUTF8(s, "\uFFFD")
	}
	require.Equal(t, norm(res["value"]), got, "%s", id)
}

// render writes a decoded Go value as the records write what Java read.
func render(v reflect.Value) any {
	if !v.IsValid() {
		return nil
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface, reflect.Map, reflect.Slice:
		if v.IsNil() {
			return nil
		}
	}
	if v.Type() == reflect.TypeFor[big.Int]() {
		if !v.CanAddr() {
			c := reflect.New(v.Type())
			c.Elem().Set(v)
			v = c.Elem()
		}
		return v.Addr().Interface().(*big.Int).String()
	}
	switch x := v.Interface().(type) {
	case time.Time:
		ms := x.UnixMilli()
		iso := time.UnixMilli(ms).UTC().Format("2006-01-02T15:04:05.000Z")
		return fmt.Sprintf("Date %d = %s", ms, strings.Replace(iso, ".000Z", "Z", 1))
	case uuid.UUID:
		return x.String()
	case *big.Int:
		return x.String()
	case codec.Decimal:
		return string(x)
	case []byte:
		return map[string]any{"hex": hex.EncodeToString(x)}
	case float64:
		return normFloat(x)
	case float32:
		return normFloat(float64(x))
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		return render(v.Elem())
	case reflect.String:
		return v.String()
	case reflect.Bool:
		return v.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(v.Int(), 10)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return strconv.FormatUint(v.Uint(), 10)
	case reflect.Slice:
		out := make([]any, v.Len())
		for i := range out {
			out[i] = render(v.Index(i))
		}
		return out
	case reflect.Map:
		out := map[string]any{}
		for _, k := range v.MapKeys() {
			out[fmt.Sprint(k.Interface())] = render(v.MapIndex(k))
		}
		return out
	case reflect.Struct:
		out := map[string]any{}
		for i := 0; i < v.NumField(); i++ {
			name, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("json"), ",")
			out[name] = render(v.Field(i))
		}
		return out
	}
	panic(fmt.Sprintf("render %s", v.Type()))
}

func normFloat(f float64) any {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case f == 0 && math.Signbit(f):
		return "-0.0"
	case f == math.Trunc(f) && math.Abs(f) < 1<<53:
		return strconv.FormatFloat(f, 'f', 0, 64) // the records write a whole double as an integer
	}
	return "float " + strconv.FormatFloat(f, 'g', -1, 64)
}

// norm puts a record value in render's form: integers as their digits,
// other numbers as floats.
func norm(v any) any {
	switch x := v.(type) {
	case json.Number:
		if !strings.ContainsAny(string(x), ".eE") {
			return string(x)
		}
		f, err := x.Float64()
		if err != nil {
			panic(err)
		}
		return normFloat(f)
	case []any:
		out := make([]any, len(x))
		for i := range x {
			out[i] = norm(x[i])
		}
		return out
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			out[k] = norm(e)
		}
		return out
	}
	return v
}

// checkTypes compares the Go types of a decoded value with the Java
// classes the record lists for it: same class mapping, containers by kind
// (a Go map for any java.util map, a Go slice for any list or set).
func checkTypes(t *testing.T, id string, types any, v reflect.Value) {
	t.Helper()
	for v.IsValid() && (v.Kind() == reflect.Interface || v.Kind() == reflect.Pointer) && !v.IsNil() {
		v = v.Elem()
	}
	switch jt := types.(type) {
	case nil:
		require.True(t, !v.IsValid() || isNil(v), "%s: Java null, Go %v", id, v)
	case string:
		want, ok := goTypes[jt]
		require.True(t, ok, "%s: no Go type for %s", id, jt)
		require.Equal(t, want, v.Type(), "%s: Go type of a %s", id, jt)
	case map[string]any:
		class := jt["class"].(string)
		switch {
		case jt["fields"] != nil:
			require.Equal(t, goTypes[class], v.Type(), id)
			for i := 0; i < v.NumField(); i++ {
				name, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("json"), ",")
				checkTypes(t, id+"."+name, jt["fields"].(map[string]any)[name], v.Field(i))
			}
		case jt["values"] != nil:
			require.Equal(t, reflect.Map, v.Kind(), "%s: a %s", id, class)
			for k, e := range jt["values"].(map[string]any) {
				checkTypes(t, id+"."+k, e, v.MapIndex(reflect.ValueOf(k)))
			}
		case jt["elements"] != nil:
			require.Equal(t, reflect.Slice, v.Kind(), "%s: a %s", id, class)
			for i, e := range jt["elements"].([]any) {
				checkTypes(t, fmt.Sprintf("%s[%d]", id, i), e, v.Index(i))
			}
		}
	}
}

func isNil(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface, reflect.Map, reflect.Slice:
		return v.IsNil()
	}
	return false
}
