package codec_test

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"net/netip"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/google/uuid"

	"github.com/goredisson/redisson/codec"
)

// Span keeps its data in unexported fields and has its own JSON: the codecs
// must write that JSON, never an empty object.
type Span struct {
	from, to int64
	labels   []string
}

type spanJSON struct {
	From   int64    `json:"from"`
	To     int64    `json:"to"`
	Labels []string `json:"labels"`
}

func (s Span) MarshalJSON() ([]byte, error) {
	return json.Marshal(spanJSON{From: s.from, To: s.to, Labels: s.labels})
}

func (s *Span) UnmarshalJSON(data []byte) error {
	var j spanJSON
	if err := json.Unmarshal(data, &j); err != nil {
		return err
	}
	*s = Span{from: j.From, to: j.To, labels: j.Labels}
	return nil
}

// Level has its own text.
type Level int

func (l Level) MarshalText() ([]byte, error) { return []byte("level-" + strconv.Itoa(int(l))), nil }

func (l *Level) UnmarshalText(text []byte) error {
	n, err := strconv.Atoi(strings.TrimPrefix(string(text), "level-"))
	*l = Level(n)
	return err
}

type KindsBase struct {
	BaseName string `json:"baseName"`
}

type KindsExtra struct {
	Extra int32 `json:"extra"`
}

// Kinds holds every kind the JSON-family codecs support.
type Kinds struct {
	KindsBase   // flattened
	*KindsExtra // flattened through a pointer

	S       string `json:"s"`
	Renamed string `redisson:"otherName"`
	Skipped string `json:"-"`
	B       bool
	I8      int8
	I16     int16
	I32     int32
	I64     int64
	I       int
	U8      uint8
	U16     uint16
	U32     uint32
	U64     uint64
	F32     float32
	F64     float64
	Boxed   int64   `redisson:"boxed,boxed"`
	Codes   []int64 `redisson:"codes,array"`
	Bytes   []byte
	Hash    [4]byte
	Grid    [2]int32

	T    time.Time
	TP   *time.Time
	U    uuid.UUID
	UP   *uuid.UUID
	BI   *big.Int
	BF   *big.Float
	Dec  codec.Decimal
	DecP *codec.Decimal
	Addr netip.Addr
	Span Span
	SpP  *Span
	Lvl  Level

	Ptr   *int64
	PP    **string
	Next  *Kinds
	List  []string
	Addrs []*Address

	IntMap  map[int32]string
	LongMap map[int64]*int64
	UUIDMap map[uuid.UUID]time.Time
	AddrMap map[netip.Addr]Level
	StrMap  map[string][]int16
	Any     any
	Color   Color
}

func kindsTypes() *codec.Types {
	return testTypes().MustRegister("com.example.Kinds", Kinds{})
}

// kindsFrom builds a Kinds from fuzzed scalars. msgpack keeps BigInteger
// and BigDecimal within what MessagePack holds.
func kindsFrom(s string, n int64, x float64, b bool, raw []byte, msgpack bool) Kinds {
	s = strings.ToValidUTF8(s, "?")
	var u uuid.UUID
	copy(u[:], raw)
	u[0] ^= byte(n)
	var hash [4]byte
	copy(hash[:], raw)
	var addr netip.Addr
	if b {
		addr = netip.AddrFrom4(hash)
	} else {
		addr = netip.AddrFrom16(u).Unmap()
	}
	bi := new(big.Int).SetInt64(n)
	dec := codec.Decimal(strconv.FormatInt(n, 10))
	if !msgpack {
		bi.SetBytes(raw)
		if b {
			bi.Neg(bi)
		}
		frac := fmt.Sprintf("%x", raw)
		frac = strings.Map(func(r rune) rune { return '0' + r%10 }, frac)
		if frac != "" {
			dec += codec.Decimal("." + frac)
		}
	}
	var bf *big.Float
	switch {
	case msgpack:
		bf = new(big.Float).SetInt64(n) // a whole BigDecimal: a MessagePack integer
	case x == 0:
		bf = big.NewFloat(0) // a BigDecimal has no negative zero
	case !math.IsInf(x, 0) && !math.IsNaN(x):
		bf = big.NewFloat(x)
	}
	f32 := float32(x)
	t := time.UnixMilli(n).UTC()
	t2 := time.UnixMilli(n / 3).UTC()
	zip := n + 1
	ps := &s
	k := Kinds{
		KindsBase: KindsBase{BaseName: s}, S: s, Renamed: s + "!", B: b,
		I8: int8(n), I16: int16(n), I32: int32(n), I64: n, I: int(n),
		U8: uint8(n), U16: uint16(n), U32: uint32(n), U64: uint64(n) & math.MaxInt64,
		F32: f32, F64: x, Boxed: -n, Codes: []int64{n, 0}, Bytes: raw, Hash: hash, Grid: [2]int32{int32(n), 1},
		T: t, TP: &t2, U: u, BI: bi, BF: bf, Dec: dec, Addr: addr,
		Span: Span{from: n, to: n / 2, labels: []string{s}}, Lvl: Level(n % 1000),
		Ptr: &zip, PP: &ps, List: []string{s, ""}, Addrs: []*Address{{City: s, Zip: &zip}, nil},
		IntMap:  map[int32]string{int32(n): s, 17: "x", 1: "y"},
		LongMap: map[int64]*int64{n: &zip, math.MinInt64: &n},
		UUIDMap: map[uuid.UUID]time.Time{u: t},
		AddrMap: map[netip.Addr]Level{addr: Level(3)},
		StrMap:  map[string][]int16{s: {int16(n)}, "e": {}},
		Any:     s,
		Color:   Color(s),
	}
	if b {
		k.KindsExtra = &KindsExtra{Extra: int32(n)}
		k.UP = &u
		k.DecP = ptr(codec.Decimal("-0.5"))
		k.SpP = &Span{}
		k.Next = &Kinds{S: "next", T: t, Hash: hash, Color: "RED"}
	}
	return k
}

// objects are values as a Java Object: each must come back as itself from
// a typed codec, type information and all.
func objects(k Kinds, msgpack bool) []any {
	out := []any{k.S, k.I64, k.I32, k.F64, k.B, nil, k.T, k.U, k.BI, append([]byte{}, k.Bytes...),
		map[string]any{"t": k.T, "u": k.U, "@class": k.S}, k.Color, k}
	if !msgpack {
		out = append(out, k.Dec)
	}
	return out
}

func fuzzKinds(f *testing.F, c codec.Codec, typed, msgpack bool) {
	f.Add("Ann", int64(7), 1.5, true, []byte{1, 2, 3, 255})
	f.Add("", int64(0), 0.0, false, []byte(nil))
	f.Add("héllo 😀\x00\t", int64(math.MinInt64), math.NaN(), true, []byte{})
	f.Add("z", int64(math.MaxInt64), math.Inf(-1), false, make([]byte, 40))
	f.Add("\xff", int64(-1), math.Copysign(0, -1), true, []byte("0123456789abcdef"))
	f.Add("@class", int64(1700000000123), 1e300, false, []byte{0})
	f.Add("x", int64(-62135596800000), 5e-324, true, []byte{0x80, 0, 0, 1})
	f.Fuzz(func(t *testing.T, s string, n int64, x float64, b bool, raw []byte) {
		k := kindsFrom(s, n, x, b, raw, msgpack)
		roundTrip(t, c, k)
		roundTrip(t, c, &k)
		roundTrip(t, c, k.T)
		roundTrip(t, c, k.U)
		roundTrip(t, c, k.Span)
		roundTrip(t, c, k.IntMap)
		roundTrip(t, c, k.UUIDMap)
		if typed {
			roundTrip(t, c, objects(k, msgpack))
			anyRoundTrip(t, c, objects(k, msgpack))
		} else {
			f := k.F64
			if math.IsNaN(f) || math.IsInf(f, 0) {
				f = 0 // an Object NaN reads back as the String "NaN", in Java too
			}
			roundTrip(t, c, []any{k.S, f, k.B, nil, map[string]any{"s": k.S}})
		}
	})
}

// FuzzKindsJsonJackson: decode(encode(v)) == v for every supported kind.
// Run: go test ./codec -run '^$' -fuzz FuzzKindsJsonJackson -fuzztime 60s
func FuzzKindsJsonJackson(f *testing.F) {
	fuzzKinds(f, codec.JsonJackson(kindsTypes()), true, false)
}

// FuzzKindsJsonJackson4 is FuzzKindsJsonJackson with Redisson 4.2+ UUIDs.
func FuzzKindsJsonJackson4(f *testing.F) {
	fuzzKinds(f, codec.JsonJackson(kindsTypes(), codec.UUIDTypeInfo()), true, false)
}

// FuzzKindsTypedJsonJackson: the same without type information.
func FuzzKindsTypedJsonJackson(f *testing.F) {
	fuzzKinds(f, codec.TypedJsonJackson(), false, false)
}

// FuzzKindsMsgPackJackson: the same in MessagePack.
func FuzzKindsMsgPackJackson(f *testing.F) {
	fuzzKinds(f, codec.MsgPackJackson(kindsTypes()), true, true)
}

// anyRoundTrip checks that a value decoded into an any is the value encoded:
// with type information, Date, UUID, BigInteger and BigDecimal come back
// as time.Time, uuid.UUID, *big.Int and codec.Decimal.
func anyRoundTrip(t *testing.T, c codec.Codec, v any) {
	t.Helper()
	data, err := c.Encode(v)
	if err != nil {
		t.Fatalf("encode %#v: %v", v, err)
	}
	var back any
	if err := c.Decode(data, &back); err != nil {
		t.Fatalf("decode %q: %v", data, err)
	}
	if !same(dropNulls(v), back) {
		t.Fatalf("decode(encode(%#v)) into any = %#v (bytes %q)", v, back, data)
	}
}

// TestKindsMaps pins the HashMap order of non-string keys: Java orders a
// HashMap<Integer,…> by Integer.hashCode (the value), a HashMap<Long,…> by
// Long.hashCode, a HashMap<UUID,…> by UUID.hashCode.
func TestKindsMaps(t *testing.T) {
	c := codec.JsonJackson(nil)
	for _, tc := range []struct {
		name string
		v    any
		want string
	}{
		{"Integer keys", map[int32]string{1: "a", 17: "b", 2: "c"}, `{"@class":"java.util.HashMap","1":"a","17":"b","2":"c"}`},
		{"Long keys", map[int64]int32{-1: 1, 0: 2, 1 << 32: 3}, `{"@class":"java.util.HashMap","-1":1,"0":2,"4294967296":3}`},
		{"uint keys", map[uint16]bool{65535: true, 0: false}, `{"@class":"java.util.HashMap","0":false,"65535":true}`},
		{"UUID keys", map[uuid.UUID]int32{uuid.MustParse("0f8fad5b-d9cb-469f-a165-70867728950e"): 1},
			`{"@class":"java.util.HashMap","0f8fad5b-d9cb-469f-a165-70867728950e":1}`},
		{"text keys", map[netip.Addr]int32{netip.MustParseAddr("10.0.0.1"): 1}, `{"@class":"java.util.HashMap","10.0.0.1":1}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := c.Encode(tc.v)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Fatalf("got %s, want %s", got, tc.want)
			}
			roundTrip(t, c, tc.v)
		})
	}
}

// TestUnsupportedValues: what no codec can represent fails at Encode with
// ErrEncode, names the Go type and the path to it, and writes nothing.
func TestUnsupportedValues(t *testing.T) {
	type hidden struct{ secret int }
	type holder struct { // each field is left nil or zero but in its own case
		Name   string         `json:"name"`
		Fn     *func()        `json:"fn"`
		Ch     *chan int      `json:"ch"`
		C      *complex128    `json:"c"`
		P      any            `json:"p"`
		Hidden *hidden        `json:"hidden"`
		Wait   *time.Duration `json:"wait"`
		Keys   map[bool]int32 `json:"keys"`
	}
	type funcField struct{ Fn func() } // a nil func is refused too: the type has no form
	types := kindsTypes().MustRegister("com.example.Holder", holder{}).MustRegister("com.example.Hidden", hidden{}).
		MustRegister("com.example.FuncField", funcField{})
	jj, typed, msgpack := codec.JsonJackson(types), codec.TypedJsonJackson(), codec.MsgPackJackson(types)
	all := []codec.Codec{jj, typed, msgpack}
	var unsafePtr any = holder{P: unsafe.Pointer(new(int))}
	for _, tc := range []struct {
		name        string
		codecs      []codec.Codec
		v           any
		unsupported bool // wraps ErrUnsupportedType: the type itself has no form
		want        string
	}{
		{"func", all, func() {}, true, "unsupported Go type func(): Java has no counterpart"},
		{"func field", all, holder{Fn: ptr(func() {})}, true, "codec_test.holder: at .fn: unsupported Go type func()"},
		{"nil func field", all, funcField{}, true, "codec_test.funcField: at .fn: unsupported Go type func()"},
		{"channel in a list", all, []any{"a", make(chan int)}, true, "at [1]: unsupported Go type chan int"},
		{"channel field", all, holder{Ch: ptr(make(chan int))}, true, "at .ch: unsupported Go type chan int"},
		{"complex128", all, complex(1, 2), true, "unsupported Go type complex128"},
		{"complex128 field", all, holder{C: ptr(1i)}, true, "at .c: unsupported Go type complex128"},
		{"complex64 in a map", all, map[string]any{"z": complex64(1)}, true, "at .z: unsupported Go type complex64"},
		{"unsafe.Pointer", all, unsafePtr, true, "at .p: unsupported Go type unsafe.Pointer"},
		{"only unexported fields", all, hidden{secret: 1}, true, "unsupported Go type codec_test.hidden: its data is in unexported fields"},
		{"only unexported fields, nested", all, holder{Hidden: &hidden{secret: 1}}, true, "at .hidden: unsupported Go type codec_test.hidden"},
		{"only unexported fields, in a map", all, map[string]hidden{"h": {secret: 2}}, true, "at .h: unsupported Go type codec_test.hidden"},
		{"time.Duration", all, time.Second, true, "unsupported Go type time.Duration: Redisson's mapper refuses java.time.Duration"},
		{"time.Duration field", all, holder{Wait: ptr(time.Second)}, true, "at .wait: unsupported Go type time.Duration"},
		{"time.Duration in a list", all, []time.Duration{1}, true, "at [0]: unsupported Go type time.Duration"},
		{"bool map keys", all, holder{Keys: map[bool]int32{true: 1}}, true, "at .keys: unsupported Go type bool: not a map key type"},
		{"float map keys", all, map[float64]string{1.5: "a"}, true, "unsupported Go type float64: not a map key type"},
		{"struct map keys", all, map[Address]string{{}: "a"}, true, "unsupported Go type codec_test.Address: not a map key type"},
		{"Decimal not a number", all, codec.Decimal("12,5"), false, `Decimal "12,5" is not a decimal number`},
		{"Decimal field not a number", all, Kinds{Dec: "NaN"}, false, `at .dec: Decimal "NaN" is not a decimal number`},
		{"time beyond a Date", all, time.Date(300_000_000, 1, 1, 0, 0, 0, 0, time.UTC), false, "outside the range of a java.util.Date"},
		{"big.Float infinity", all, new(big.Float).SetInf(false), false, "has no BigDecimal counterpart"},
		{"BigInteger beyond 64 bits in MessagePack", []codec.Codec{msgpack}, Kinds{BI: bigInt("18446744073709551616")}, false,
			"codec_test.Kinds: at .bi: BigInteger 18446744073709551616 does not fit 64 bits"},
		{"BigDecimal scale in MessagePack", []codec.Codec{msgpack}, codec.Decimal("2.50"), false, "would read back as 2.5: MessagePack keeps no scale"},
		{"BigDecimal msgpack-java refuses", []codec.Codec{msgpack}, codec.Decimal("0.00001"), false, "msgpack-java refuses"},
		{"BigDecimal beyond a double", []codec.Codec{msgpack}, codec.Decimal("0.1000000000000000000001"), false, "is not exactly the double"},
		{"MarshalJSON error", all, failing{}, false, "MarshalJSON of codec_test.failing: no"},
		{"MarshalJSON bad JSON", all, badJSON{}, false, "MarshalJSON of codec_test.badJSON gave bad JSON"},
		{"MarshalText not UTF-8", all, badText{}, false, "MarshalText of codec_test.badText gave text that is not UTF-8"},
		{"uint64 beyond a long", all, uint64(math.MaxUint64), false, "does not fit a Java long"},
		{"String codec: channel", []codec.Codec{codec.String()}, make(chan int), true, "unsupported Go type chan int: no text form"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, c := range tc.codecs {
				got, err := c.Encode(tc.v)
				if err == nil {
					t.Fatalf("%T: encoded %q, want an error", c, got)
				}
				if got != nil {
					t.Fatalf("%T: wrote %q with the error", c, got)
				}
				if !errors.Is(err, codec.ErrEncode) {
					t.Fatalf("%T: %v does not wrap ErrEncode", c, err)
				}
				if errors.Is(err, codec.ErrUnsupportedType) != tc.unsupported {
					t.Fatalf("%T: ErrUnsupportedType %v: %v", c, !tc.unsupported, err)
				}
				if !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("%T: %q does not say %q", c, err, tc.want)
				}
			}
		})
	}
	// Decoding into such a type says so too.
	var d time.Duration
	if err := jj.Decode([]byte(`["java.lang.Long",1000]`), &d); !errors.Is(err, codec.ErrUnsupportedType) || !errors.Is(err, codec.ErrDecode) {
		t.Fatalf("decode into time.Duration: %v", err)
	}
	var m map[float64]string
	if err := typed.Decode([]byte(`{"1.5":"a"}`), &m); !errors.Is(err, codec.ErrUnsupportedType) {
		t.Fatalf("decode into map[float64]string: %v", err)
	}
	// Zero values of such structs hold no data: they are written (as Java
	// writes an object without properties).
	if _, err := jj.Encode(hidden{}); err != nil {
		t.Fatal(err)
	}
}

type failing struct{}

func (failing) MarshalJSON() ([]byte, error) { return nil, errors.New("no") }

type badJSON struct{}

func (badJSON) MarshalJSON() ([]byte, error) { return []byte(`{"a":`), nil }

type badText struct{}

func (badText) MarshalText() ([]byte, error) { return []byte{0xff}, nil }

// TestSpecialBytes pins what each codec writes for the types with a
// mapping of their own (the records decide where they have the case).
func TestSpecialBytes(t *testing.T) {
	types := testTypes().MustRegister("com.example.Span", Span{})
	jj, jj4, typed := codec.JsonJackson(types), codec.JsonJackson(types, codec.UUIDTypeInfo()), codec.TypedJsonJackson()
	plain := codec.JsonJackson(nil)
	u := uuid.MustParse("0f8fad5b-d9cb-469f-a165-70867728950e")
	ms := time.UnixMilli(1700000000123).UTC()
	type withUUID struct {
		ID  uuid.UUID  `json:"id"`
		Ref *uuid.UUID `json:"ref"`
	}
	types.MustRegister("com.example.WithUUID", withUUID{})
	type embedded struct {
		*KindsExtra
		KindsBase
		Own string `json:"own"`
	}
	types.MustRegister("com.example.Embedded", embedded{})
	for _, tc := range []struct {
		name string
		c    codec.Codec
		v    any
		want string
	}{
		{"Date", jj, ms, `["java.util.Date",1700000000123]`},
		{"Date keeps milliseconds, rounded down as Date.from(Instant)", jj,
			time.Date(2023, 11, 14, 23, 13, 20, 123999999, time.FixedZone("CET", 3600)), `["java.util.Date",1700000000123]`},
		{"Date before 1970", jj, time.UnixMilli(-1).Add(500 * time.Microsecond), `["java.util.Date",-1]`},
		{"Date as an Object", jj, []any{ms}, `["java.util.ArrayList",[["java.util.Date",1700000000123]]]`},
		{"Date typed", typed, ms, `1700000000123`},
		{"UUID at the top (3.x)", jj, u, `"0f8fad5b-d9cb-469f-a165-70867728950e"`},
		{"UUID at the top (4.2+)", jj4, u, `["java.util.UUID","0f8fad5b-d9cb-469f-a165-70867728950e"]`},
		{"UUID as an Object", jj, map[string]any{"u": u}, `{"@class":"java.util.HashMap","u":["java.util.UUID","0f8fad5b-d9cb-469f-a165-70867728950e"]}`},
		{"UUID fields (3.x)", jj, withUUID{ID: u, Ref: &u},
			`{"@class":"com.example.WithUUID","id":"0f8fad5b-d9cb-469f-a165-70867728950e","ref":"0f8fad5b-d9cb-469f-a165-70867728950e"}`},
		{"UUID fields (4.2+)", jj4, withUUID{ID: u, Ref: &u}, `{"@class":"com.example.WithUUID","id":["java.util.UUID","0f8fad5b-d9cb-469f-a165-70867728950e"],` +
			`"ref":["java.util.UUID","0f8fad5b-d9cb-469f-a165-70867728950e"]}`},
		{"UUID typed", typed, u, `"0f8fad5b-d9cb-469f-a165-70867728950e"`},
		{"BigInteger", jj, bigInt("-123456789012345678901234567890"), `["java.math.BigInteger",-123456789012345678901234567890]`},
		{"small BigInteger", jj, big.NewInt(5), `["java.math.BigInteger",5]`},
		{"BigInteger typed", typed, bigInt("123456789012345678901234567890"), `123456789012345678901234567890`},
		{"BigDecimal keeps its scale", jj, codec.Decimal("12345.678900"), `["java.math.BigDecimal",12345.678900]`},
		{"BigDecimal in plain notation", jj, codec.Decimal("1E+3"), `["java.math.BigDecimal",1000]`},
		{"BigDecimal small", jj, codec.Decimal("-1.5e-7"), `["java.math.BigDecimal",-0.00000015]`},
		{"BigDecimal negative zero", jj, codec.Decimal("-0.00"), `["java.math.BigDecimal",0.00]`},
		{"BigDecimal loose text", jj, codec.Decimal("+007.50"), `["java.math.BigDecimal",7.50]`},
		{"empty Decimal is null", jj, []any{codec.Decimal("")}, `["java.util.ArrayList",[null]]`},
		{"BigDecimal typed", typed, codec.Decimal("12345.678900"), `12345.678900`},
		{"big.Float", jj, big.NewFloat(12345.6789), `["java.math.BigDecimal",12345.6789]`},
		{"byte[]", jj, []byte{1, 2, 3, 0xff}, `"AQID/w=="`},
		{"byte array", jj, [4]byte{1, 2, 3, 0xff}, `"AQID/w=="`},
		{"other array", jj, [2]int32{1, 2}, `["java.util.ArrayList",[1,2]]`},
		{"non-BMP character", jj, "😀 é", `"\uD83D\uDE00 é"`},
		{"TextMarshaler", jj, netip.MustParseAddr("192.0.2.1"), `"192.0.2.1"`},
		{"TextMarshaler as an Object", jj, []any{Level(2)}, `["java.util.ArrayList",["level-2"]]`},
		{"MarshalJSON object as a HashMap", plain, Span{from: 5000000000, to: 2, labels: []string{"a"}},
			`{"@class":"java.util.HashMap","from":["java.lang.Long",5000000000],"to":2,"labels":["java.util.ArrayList",["a"]]}`},
		{"MarshalJSON object of a registered class", jj, Span{from: 1, to: 2},
			`{"@class":"com.example.Span","from":1,"to":2}`},
		{"MarshalJSON typed", typed, Span{from: 1, to: 2, labels: []string{"a"}}, `{"from":1,"to":2,"labels":["a"]}`},
		{"MarshalJSON keeps number digits", plain, rawJSON(`{"p":1.10,"q":[1E+2]}`),
			`{"@class":"java.util.HashMap","p":1.10,"q":["java.util.ArrayList",[1E+2]]}`},
		{"embedded pointer, nil", jj, embedded{Own: "o"}, `{"@class":"com.example.Embedded","baseName":"","own":"o"}`},
		{"embedded pointer", jj, embedded{KindsExtra: &KindsExtra{Extra: 3}, Own: "o"}, `{"@class":"com.example.Embedded","baseName":"","extra":3,"own":"o"}`},
		{"map key @class is an entry", plain, map[string]int32{"@class": 1}, `{"@class":"java.util.HashMap","@class":1}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.c.Encode(tc.v)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Fatalf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
	msgpack := codec.MsgPackJackson(nil)
	for _, tc := range []struct {
		name string
		v    any
		want string
	}{
		{"Date", ms, "92ae6a6176612e7574696c2e44617465cf0000018bcfe5687b"},
		{"BigInteger in 64 bits", big.NewInt(-1), "92b46a6176612e6d6174682e426967496e7465676572ff"},
		{"BigInteger as uint64", new(big.Int).SetUint64(math.MaxUint64), "92b46a6176612e6d6174682e426967496e7465676572cfffffffffffffffff"},
		{"whole BigDecimal: an integer", codec.Decimal("1E+3"), "92b46a6176612e6d6174682e426967446563696d616ccd03e8"},
		{"BigDecimal: a double", codec.Decimal("2.5"), "92b46a6176612e6d6174682e426967446563696d616ccb4004000000000000"},
		{"UUID: text", u, "d92430663866616435622d643963622d343639662d613136352d373038363737323839353065"},
	} {
		t.Run("MessagePack "+tc.name, func(t *testing.T) {
			got, err := msgpack.Encode(tc.v)
			if err != nil {
				t.Fatal(err)
			}
			if hex.EncodeToString(got) != tc.want {
				t.Fatalf("got  %x\nwant %s", got, tc.want)
			}
		})
	}
}

// rawJSON is JSON as a json.Marshaler gives it.
type rawJSON string

func (r rawJSON) MarshalJSON() ([]byte, error) { return []byte(r), nil }

// TestSpecialDecode reads the forms Java and other clients write.
func TestSpecialDecode(t *testing.T) {
	types := testTypes().MustRegister("com.example.Span", Span{})
	jj, typed, msgpack := codec.JsonJackson(types), codec.TypedJsonJackson(), codec.MsgPackJackson(types)
	u := uuid.MustParse("0f8fad5b-d9cb-469f-a165-70867728950e")
	ms := time.UnixMilli(1700000000123).UTC()
	for _, tc := range []struct {
		name string
		c    codec.Codec
		data string // hex for MessagePack
		want any
	}{
		{"Date from epoch ms", jj, `["java.util.Date",1700000000123]`, ms},
		{"Date from RFC 3339", jj, `["java.util.Date","2023-11-14T23:13:20.123+01:00"]`, ms},
		{"Date cut to milliseconds", jj, `["java.util.Date","2023-11-14T22:13:20.123999Z"]`, ms},
		{"Date typed from a date alone", typed, `"2023-11-14"`, time.UnixMilli(1699920000000).UTC()},
		{"Date typed from an offset without colon", typed, `"2023-11-14T23:13:20.123+0100"`, ms},
		{"Date bare number", jj, `1700000000123`, ms},
		{"UUID wrapped", jj, `["java.util.UUID","0f8fad5b-d9cb-469f-a165-70867728950e"]`, u},
		{"UUID plain", jj, `"0f8fad5b-d9cb-469f-a165-70867728950e"`, u},
		{"UUID from MessagePack binary", msgpack, "c4100f8fad5bd9cb469fa16570867728950e", u},
		{"BigInteger from a Long", jj, `["java.lang.Long",5]`, big.NewInt(5)},
		{"BigInteger from text", typed, `"123456789012345678901234567890"`, bigInt("123456789012345678901234567890")},
		{"BigDecimal from text", jj, `["java.math.BigDecimal","12345.678900"]`, codec.Decimal("12345.678900")},
		{"BigDecimal from an exponent", typed, `1.50E+3`, codec.Decimal("1500")},
		{"BigDecimal from a Double", jj, `["java.lang.Double",0.1]`, codec.Decimal("0.1")},
		{"BigDecimal from MessagePack double", msgpack, "92b46a6176612e6d6174682e426967446563696d616ccb4004000000000000", codec.Decimal("2.5")},
		{"big.Float", jj, `["java.math.BigDecimal",0.1000000000000000000000000001]`, mustFloat("0.1000000000000000000000000001")},
		{"MarshalJSON type from its HashMap", codec.JsonJackson(nil), `{"@class":"java.util.HashMap","from":["java.lang.Long",5000000000],"to":2,"labels":["java.util.ArrayList",["a"]]}`,
			Span{from: 5000000000, to: 2, labels: []string{"a"}}},
		{"MarshalJSON type from its class", jj, `{"@class":"com.example.Span","from":1,"to":2}`, Span{from: 1, to: 2}},
		{"TextUnmarshaler", jj, `"192.0.2.1"`, netip.MustParseAddr("192.0.2.1")},
		{"integer map keys", jj, `{"@class":"java.util.HashMap","17":"b","-1":"a"}`, map[int8]string{17: "b", -1: "a"}},
		{"a later @class is a key", jj, `{"@class":"java.util.HashMap","@class":1}`, map[string]int32{"@class": 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := []byte(tc.data)
			if tc.c == msgpack {
				data = mustHex(t, tc.data)
			}
			p := reflect.New(reflect.TypeOf(tc.want))
			if err := tc.c.Decode(data, p.Interface()); err != nil {
				t.Fatal(err)
			}
			if !same(tc.want, p.Elem().Interface()) {
				t.Fatalf("got %#v, want %#v", p.Elem().Interface(), tc.want)
			}
		})
	}
	for _, tc := range []struct {
		name  string
		data  string
		into  any
		wrong bool
		want  string
	}{
		{"Date from another class", `["java.time.Instant","2023-11-14T22:13:20.123Z"]`, new(time.Time), true, `"java.time.Instant" for Go type time.Time`},
		{"Date from a float", `1.5`, new(time.Time), false, "cannot decode: a number into Go type time.Time"},
		{"Date from text that is no date", `"yesterday"`, new(time.Time), false, "is not a date Java reads"},
		{"UUID from another class", `["java.lang.String","x"]`, new(uuid.UUID), true, `"java.lang.String" for Go type uuid.UUID`},
		{"UUID from bad text", `"0f8fad5b"`, new(uuid.UUID), false, "is not a UUID"},
		{"BigInteger from a decimal", `["java.math.BigDecimal",1.5]`, new(*big.Int), false, "cannot decode: a number into Go type big.Int"},
		{"BigDecimal from text that is no number", `"12,5"`, new(codec.Decimal), false, "cannot decode: a string into Go type codec.Decimal"},
		{"MarshalJSON type of another class", `{"@class":"com.example.Address","from":1}`, new(Span), true, `"com.example.Address", want "com.example.Span"`},
		{"integer map key out of range", `{"@class":"java.util.HashMap","300":"x"}`, new(map[int8]string), false, `map key "300" is not a int8`},
	} {
		t.Run("error "+tc.name, func(t *testing.T) {
			err := jj.Decode([]byte(tc.data), tc.into)
			if !errors.Is(err, codec.ErrDecode) || errors.Is(err, codec.ErrWrongClass) != tc.wrong || !strings.Contains(fmt.Sprint(err), tc.want) {
				t.Fatalf("got %v, want an error saying %q (wrong class: %v)", err, tc.want, tc.wrong)
			}
		})
	}
}

func mustFloat(s string) *big.Float {
	f, _, err := big.ParseFloat(s, 10, 200, big.ToNearestEven)
	if err != nil {
		panic(err)
	}
	return f
}

// TestStringCodecJavaText: StringCodec writes what Java's toString writes
// for an Instant and a Duration, and reads it back.
func TestStringCodecJavaText(t *testing.T) {
	c := codec.String()
	for _, tc := range []struct {
		v    any
		want string
	}{
		{time.UnixMilli(1700000000123).UTC(), "2023-11-14T22:13:20.123Z"}, // recorded
		{time.Unix(1700000000, 0), "2023-11-14T22:13:20Z"},
		{time.Unix(1700000000, 120_000), "2023-11-14T22:13:20.000120Z"},
		{time.Unix(1700000000, 1), "2023-11-14T22:13:20.000000001Z"},
		{time.Date(2023, 11, 14, 23, 13, 20, 0, time.FixedZone("", 3600)), "2023-11-14T22:13:20Z"},
		{time.Duration(0), "PT0S"},
		{1500 * time.Millisecond, "PT1.5S"},
		{-1500 * time.Millisecond, "PT-1.5S"},
		{-500 * time.Millisecond, "PT-0.5S"},
		{-90 * time.Second, "PT-1M-30S"},
		{8*time.Hour + 6*time.Minute + 12345*time.Millisecond, "PT8H6M12.345S"},
		{2 * time.Hour, "PT2H"},
		{time.Nanosecond, "PT0.000000001S"},
		{uuid.MustParse("0f8fad5b-d9cb-469f-a165-70867728950e"), "0f8fad5b-d9cb-469f-a165-70867728950e"}, // recorded
		{codec.Decimal("12345.678900"), "12345.678900"},                                                  // recorded
		{netip.MustParseAddr("::1"), "::1"},
	} {
		got, err := c.Encode(tc.v)
		if err != nil || string(got) != tc.want {
			t.Fatalf("Encode(%v) = %q, %v; want %q", tc.v, got, err, tc.want)
		}
		p := reflect.New(reflect.TypeOf(tc.v))
		if err := c.Decode(got, p.Interface()); err != nil {
			t.Fatalf("Decode(%q): %v", got, err)
		}
		if !same(tc.v, p.Elem().Interface()) {
			t.Fatalf("Decode(%q) = %v, want %v", got, p.Elem().Interface(), tc.v)
		}
	}
	for text, want := range map[string]time.Duration{
		"P2DT3H": 51 * time.Hour, "-PT6H3M": -(6*time.Hour + 3*time.Minute), "PT+1,5S": 1500 * time.Millisecond,
		"pt1m": time.Minute, "PT-1M30S": -30 * time.Second,
	} {
		var d time.Duration
		if err := c.Decode([]byte(text), &d); err != nil || d != want {
			t.Fatalf("Decode(%q) = %v, %v; want %v", text, d, err, want)
		}
	}
	for _, text := range []string{"", "P", "PT", "1.5s", "PT1.5M", "PT1S2M", "P1H", "PT9999999999999H"} {
		var d time.Duration
		if err := c.Decode([]byte(text), &d); !errors.Is(err, codec.ErrDecode) {
			t.Fatalf("Decode(%q) = %v, want an error", text, err)
		}
	}
}

// rawBox keeps whatever JSON it is given: its round trip shows that the
// typed codecs add and remove type information without touching the data.
type rawBox struct{ json string }

func (r rawBox) MarshalJSON() ([]byte, error) { return []byte(r.json), nil }

func (r *rawBox) UnmarshalJSON(data []byte) error {
	r.json = string(data)
	return nil
}

func TestMarshalerJSONKept(t *testing.T) {
	for _, c := range []codec.Codec{codec.JsonJackson(nil), codec.TypedJsonJackson(), codec.MsgPackJackson(nil)} {
		for _, in := range []string{
			`{"a":[["x.y",1],["p.q",[2]]],"@class":"k","b":{"@class":"java.util.HashMap"}}`,
			`[["java.lang.Long",1],"s",5000000000,-2.5,null,true,{}]`,
			`"text"`, `12345678901234567890`, `{"n":{"m":[[]]}}`,
		} {
			data, err := c.Encode(rawBox{json: in})
			if err != nil {
				t.Fatalf("%T %s: %v", c, in, err)
			}
			var out rawBox
			if err := c.Decode(data, &out); err != nil {
				t.Fatalf("%T %s from %q: %v", c, in, data, err)
			}
			var want, got any
			if err := json.Unmarshal([]byte(in), &want); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal([]byte(out.json), &got); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(dropNulls(want), dropNulls(got)) {
				t.Fatalf("%T: %s came back as %s (stored %q)", c, in, out.json, data)
			}
		}
	}
}
