package codec_test

import (
	jsonpkg "encoding/json"
	"reflect"
	"sort"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
	"github.com/vmihailenco/msgpack/v5"

	"github.com/goredisson/redisson/codec"
)

// level has an IsZero that is not the zero value: omitzero asks it.
type level int32

func (l level) IsZero() bool { return l <= 0 }

// label has IsZero on the pointer, which omitzero finds as encoding/json does.
type label string

func (l *label) IsZero() bool { return *l == "" || *l == "none" }

type omitInner struct {
	N int64  `json:"n,omitempty"`
	S string `json:"s"`
}

type omitBase struct {
	Rev  int64  `json:"rev,omitzero"`
	Note string `json:"note,omitempty"`
}

// omitTypes registers the Java class of the value under test (always
// "com.example.T") and of the nested struct.
func omitTypes(v any) *codec.Types {
	return codec.NewTypes().
		MustRegister("com.example.T", reflect.Indirect(reflect.ValueOf(v)).Interface()).
		MustRegister("com.example.Inner", omitInner{})
}

// TestOmitTags: `omitempty` and `omitzero`, in the json or the redisson
// tag, leave a field out exactly when encoding/json leaves it out, in every
// codec that writes structs; decoding the message without the field gives
// the Go zero value; a field without the option is written as before.
func TestOmitTags(t *testing.T) {
	zeroTime := time.Time{}
	at := time.UnixMilli(1700000000123).UTC()
	id := uuid.MustParse("0f8fad5b-d9cb-469f-a165-70867728950e")
	type (
		eBool struct {
			B bool `json:"b,omitempty"`
		}
		eInt struct {
			I int64 `json:"i,omitempty"`
		}
		eFloat struct {
			F float64 `json:"f,omitempty"`
		}
		eString struct {
			S string `json:"s,omitempty"`
		}
		eSlice struct {
			L []string `json:"l,omitempty"`
		}
		eMap struct {
			M map[string]int32 `json:"m,omitempty"`
		}
		eArray struct {
			A [2]int32 `json:"a,omitempty"`
		}
		eEmptyArray struct {
			A [0]int32 `json:"a,omitempty"`
		}
		ePtr struct {
			P *int64 `json:"p,omitempty"`
		}
		eAny struct {
			X any `json:"x,omitempty"`
		}
		eTime struct {
			W time.Time `json:"w,omitempty"`
		}
		eStruct struct {
			In omitInner `json:"in,omitempty"`
		}
		eStructPtr struct {
			In *omitInner `json:"in,omitempty"`
		}
		zTime struct {
			W time.Time `json:"w,omitzero"`
		}
		zTimePtr struct {
			W *time.Time `json:"w,omitzero"`
		}
		zUUID struct {
			ID uuid.UUID `json:"id,omitzero"`
		}
		zInt struct {
			I int64 `json:"i,omitzero"`
		}
		zPtr struct {
			P *int64 `json:"p,omitzero"`
		}
		zSlice struct {
			L []int32 `json:"l,omitzero"`
		}
		zArray struct {
			A [2]int32 `json:"a,omitzero"`
		}
		zStruct struct {
			In omitInner `json:"in,omitzero"`
		}
		zMethod struct {
			L level `json:"l,omitzero"`
		}
		zPtrMethod struct {
			L label `json:"l,omitzero"`
		}
		zIface struct {
			Z interface{ IsZero() bool } `json:"z,omitzero"`
		}
		both struct {
			W time.Time `json:"w,omitempty,omitzero"`
			S string    `json:"s,omitempty,omitzero"`
		}
		redissonTag struct {
			ID    int64    `redisson:"id,boxed,omitzero"`
			Codes []int64  `redisson:"codes,array,omitempty"`
			Name  string   `redisson:"name" json:"title,omitempty"`
			Tags  []string `redisson:",omitempty" json:"labels"`
		}
		embedded struct {
			omitBase
			Name string `json:"name,omitempty"`
		}
		embeddedPtr struct {
			*omitBase
			Name string `json:"name"`
		}
		untagged struct {
			W  time.Time `json:"w"`
			ID uuid.UUID `json:"id"`
			I  int64     `json:"i"`
			S  string
			L  []string `json:"l"`
		}
	)
	const cls = `{"@class":"com.example.T"`
	// Cases whose property names encoding/json spells otherwise.
	namesDiffer := map[string]bool{"redisson tag options": true, "redisson tag options, zero": true, "no option: written as before": true}
	for _, tc := range []struct {
		name string
		v    any
		want string // JsonJackson
		back any    // what decoding gives, when not v
	}{
		{"omitempty false", eBool{}, cls + `}`, nil},
		{"omitempty true", eBool{B: true}, cls + `,"b":true}`, nil},
		{"omitempty 0", eInt{}, cls + `}`, nil},
		{"omitempty 1", eInt{I: 1}, cls + `,"i":1}`, nil},
		{"omitempty 0.0", eFloat{}, cls + `}`, nil},
		{"omitempty -0.0", eFloat{F: negZero()}, cls + `}`, eFloat{}},
		{"omitempty empty string", eString{}, cls + `}`, nil},
		{"omitempty nil slice", eSlice{}, cls + `}`, nil},
		{"omitempty empty slice", eSlice{L: []string{}}, cls + `}`, eSlice{}},
		{"omitempty slice", eSlice{L: []string{"a"}}, cls + `,"l":["java.util.ArrayList",["a"]]}`, nil},
		{"omitempty nil map", eMap{}, cls + `}`, nil},
		{"omitempty empty map", eMap{M: map[string]int32{}}, cls + `}`, eMap{}},
		{"omitempty zero array of 2 is written", eArray{}, cls + `,"a":["java.util.ArrayList",[0,0]]}`, nil},
		{"omitempty array of 0", eEmptyArray{}, cls + `}`, nil},
		{"omitempty nil pointer", ePtr{}, cls + `}`, nil},
		{"omitempty pointer to 0 is written", ePtr{P: ptr(int64(0))}, cls + `,"p":["java.lang.Long",0]}`, nil},
		{"omitempty nil interface", eAny{}, cls + `}`, nil},
		{"omitempty interface holding 0 is written", eAny{X: int32(0)}, cls + `,"x":0}`, nil},
		{"omitempty zero time is written (a struct is never empty)", eTime{}, cls + `,"w":["java.util.Date",-62135596800000]}`, nil},
		{"omitempty zero struct is written", eStruct{}, cls + `,"in":{"@class":"com.example.Inner","s":""}}`, nil},
		{"omitempty nil struct pointer", eStructPtr{}, cls + `}`, nil},
		{"omitempty nested", eStructPtr{In: &omitInner{S: "x"}}, cls + `,"in":{"@class":"com.example.Inner","s":"x"}}`, nil},
		{"omitzero zero time", zTime{}, cls + `}`, nil},
		{"omitzero zero time in a zone", zTime{W: zeroTime.In(time.FixedZone("X", 3600))}, cls + `}`, zTime{}},
		{"omitzero time", zTime{W: at}, cls + `,"w":["java.util.Date",1700000000123]}`, nil},
		{"omitzero nil time pointer", zTimePtr{}, cls + `}`, nil},
		{"omitzero pointer to the zero time (its IsZero)", zTimePtr{W: &zeroTime}, cls + `}`, zTimePtr{}},
		{"omitzero time pointer", zTimePtr{W: &at}, cls + `,"w":["java.util.Date",1700000000123]}`, nil},
		{"omitzero zero UUID", zUUID{}, cls + `}`, nil},
		{"omitzero UUID", zUUID{ID: id}, cls + `,"id":"0f8fad5b-d9cb-469f-a165-70867728950e"}`, nil},
		{"omitzero 0", zInt{}, cls + `}`, nil},
		{"omitzero -1", zInt{I: -1}, cls + `,"i":-1}`, nil},
		{"omitzero nil pointer", zPtr{}, cls + `}`, nil},
		{"omitzero pointer to 0 is written", zPtr{P: ptr(int64(0))}, cls + `,"p":["java.lang.Long",0]}`, nil},
		{"omitzero nil slice", zSlice{}, cls + `}`, nil},
		{"omitzero empty slice is written", zSlice{L: []int32{}}, cls + `,"l":["java.util.ArrayList",[]]}`, nil},
		{"omitzero zero array", zArray{}, cls + `}`, nil},
		{"omitzero array", zArray{A: [2]int32{0, 1}}, cls + `,"a":["java.util.ArrayList",[0,1]]}`, nil},
		{"omitzero zero struct", zStruct{}, cls + `}`, nil},
		{"omitzero struct", zStruct{In: omitInner{N: 2}}, cls + `,"in":{"@class":"com.example.Inner","n":2,"s":""}}`, nil},
		{"omitzero IsZero true of a non-zero value", zMethod{L: -3}, cls + `}`, zMethod{}},
		{"omitzero IsZero false", zMethod{L: 3}, cls + `,"l":3}`, nil},
		{"omitzero IsZero on the pointer", zPtrMethod{L: "none"}, cls + `}`, zPtrMethod{}},
		{"omitzero IsZero on the pointer, false", zPtrMethod{L: "x"}, cls + `,"l":"x"}`, nil},
		{"omitzero nil interface", zIface{}, cls + `}`, nil},
		{"omitzero interface whose value IsZero", zIface{Z: level(0)}, cls + `}`, zIface{}},
		{"omitempty and omitzero", both{}, cls + `}`, nil},
		{"redisson tag options, zero", redissonTag{Codes: []int64{}, Tags: []string{}}, cls + `}`, redissonTag{}},
		{"redisson tag options", redissonTag{ID: 7, Codes: []int64{1}, Name: "n", Tags: []string{"t"}},
			cls + `,"codes":[1],"id":["java.lang.Long",7],"labels":["java.util.ArrayList",["t"]],"name":"n"}`, nil},
		{"embedded struct's options", embedded{}, cls + `}`, nil},
		{"embedded struct", embedded{omitBase: omitBase{Rev: 2, Note: "n"}, Name: "x"}, cls + `,"name":"x","note":"n","rev":2}`, nil},
		{"embedded nil pointer", embeddedPtr{}, cls + `,"name":""}`, nil},
		{"embedded pointer's options", embeddedPtr{omitBase: &omitBase{}}, cls + `,"name":""}`, embeddedPtr{}},
		{"no option: written as before", untagged{},
			cls + `,"i":0,"id":"00000000-0000-0000-0000-000000000000","s":"","w":["java.util.Date",-62135596800000]}`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			back := tc.back
			if back == nil {
				back = tc.v
			}
			types := omitTypes(tc.v)
			json, err := codec.JsonJackson(types).Encode(tc.v)
			require.NoError(t, err)
			require.Equal(t, tc.want, string(json))
			want := keysOf(t, json, jsonpkg.Unmarshal)
			if !namesDiffer[tc.name] {
				std, err := jsonpkg.Marshal(tc.v)
				require.NoError(t, err)
				require.Equal(t, keysOf(t, std, jsonpkg.Unmarshal), want, "encoding/json leaves out the same: %s", std)
			}
			for i, c := range []codec.Codec{codec.JsonJackson(types), codec.MsgPackJackson(types), codec.TypedJsonJackson()} {
				data, err := c.Encode(tc.v)
				require.NoError(t, err)
				unmarshal := jsonpkg.Unmarshal
				if i == 1 {
					unmarshal = msgpack.Unmarshal
				}
				require.Equal(t, want, keysOf(t, data, unmarshal), "the same properties left out in %q", data)
				got := reflect.New(reflect.TypeOf(tc.v))
				require.NoError(t, c.Decode(data, got.Interface()))
				require.Equal(t, back, got.Elem().Interface(), "round trip of %q", data)
			}
		})
	}
}

func negZero() float64 { z := 0.0; return -z }

// keysOf returns the names of an object's properties that are not null
// (Redisson's mapper leaves nulls out, encoding/json writes them), "@class"
// aside.
func keysOf(t *testing.T, data []byte, unmarshal func([]byte, any) error) []string {
	var m map[string]any
	require.NoError(t, unmarshal(data, &m))
	names := []string{}
	for k, v := range m {
		if k != "@class" && v != nil {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	return names
}

// TestDecodeAbsentProperty: a message without a property (left out by
// omitempty/omitzero, or by a Java writer with NON_NULL) gives the field its
// Go zero value, also over a target that held a value before.
func TestDecodeAbsentProperty(t *testing.T) {
	type rec struct {
		ID    uuid.UUID         `json:"id,omitzero"`
		When  time.Time         `json:"when,omitzero"`
		Tags  []string          `json:"tags,omitempty"`
		Count int64             `json:"count,omitempty"`
		Attrs map[string]string `json:"attrs,omitempty"`
		In    *omitInner        `json:"in,omitempty"`
		Name  string            `json:"name"`
	}
	types := omitTypes(rec{})
	full := rec{ID: uuid.New(), When: time.UnixMilli(1).UTC(), Tags: []string{"a"}, Count: 3,
		Attrs: map[string]string{"k": "v"}, In: &omitInner{N: 1}, Name: "old"}
	for _, c := range []codec.Codec{codec.JsonJackson(types), codec.MsgPackJackson(types), codec.TypedJsonJackson()} {
		data, err := c.Encode(rec{Name: "new"})
		require.NoError(t, err)
		got := full
		require.NoError(t, c.Decode(data, &got))
		require.Equal(t, rec{Name: "new"}, got, "decoded from %q", data)
	}
}
