package codec_test

import (
	"encoding/hex"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson/codec"
	"github.com/goredisson/redisson/internal/vectors"
)

func mustHex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	require.NoError(t, err)
	return b
}

func mustEncode(t testing.TB, c codec.Codec, v any) []byte {
	t.Helper()
	b, err := c.Encode(v)
	require.NoError(t, err)
	return b
}

// TestGuess: what each codec writes, and look-alikes that are not it.
func TestGuess(t *testing.T) {
	json, msgpack := codec.JsonJackson(testTypes()), codec.MsgPackJackson(testTypes())
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"json object", mustEncode(t, json, sampleOrder()), codec.GuessJSON},
		{"json unknown class", []byte(`{"@class":"com.other.Thing","a":1}`), codec.GuessJSON},
		{"json Long", mustEncode(t, json, int64(42)), codec.GuessJSON},
		{"json list", mustEncode(t, json, []any{"a", int32(1)}), codec.GuessJSON},
		{"json map", mustEncode(t, json, map[string]any{"k": "v"}), codec.GuessJSON},
		{"json array class", []byte(`["[Ljava.lang.Object;",[1,2]]`), codec.GuessJSON},
		{"json String is plain text", mustEncode(t, json, "hello"), codec.GuessString},
		{"json Integer is plain text", mustEncode(t, json, int32(42)), codec.GuessString},
		{"typed json is plain text", mustEncode(t, codec.TypedJsonJackson(), sampleOrder()), codec.GuessString},
		{"@class not first", []byte(`{"a":1,"@class":"com.x.Y"}`), codec.GuessString},
		{"@class not a string", []byte(`{"@class":1}`), codec.GuessString},
		{"array of strings", []byte(`["a","b"]`), codec.GuessString},
		{"wrapper of 3", []byte(`["java.util.ArrayList",[],1]`), codec.GuessString},
		{"broken json", []byte(`{"@class":"com.x.Y","a":`), codec.GuessString},
		{"json with leading space", []byte(` {"@class":"com.x.Y"}`), codec.GuessString},
		{"msgpack object", mustEncode(t, msgpack, sampleOrder()), codec.GuessMsgPack},
		{"msgpack Long", mustEncode(t, msgpack, int64(-7)), codec.GuessMsgPack},
		{"msgpack list", mustEncode(t, msgpack, []any{"a", int64(1)}), codec.GuessMsgPack},
		{"msgpack String", mustEncode(t, msgpack, "héllo"), codec.GuessMsgPack},
		{"msgpack long String", mustEncode(t, msgpack, string(make([]byte, 300))), codec.GuessMsgPack},
		{"msgpack Double", mustEncode(t, msgpack, 1.5), codec.GuessMsgPack},
		{"msgpack map without class", mustHex(t, "81a161a162"), codec.GuessBytes},
		{"msgpack wrapper without a class name", mustHex(t, "92a16101"), codec.GuessBytes},
		{"msgpack String of bad UTF-8", mustHex(t, "a2c328"), codec.GuessBytes},
		{"truncated msgpack object", mustEncode(t, msgpack, sampleOrder())[:20], codec.GuessBytes},
		{"msgpack huge length", mustHex(t, "dfffffffff"), codec.GuessBytes},
		{"string", []byte("héllo wörld\n\tok"), codec.GuessString},
		{"long", []byte("-42"), codec.GuessString},
		{"empty", nil, codec.GuessString},
		{"control bytes", []byte{0, 1, 2}, codec.GuessBytes},
		{"kryo String", mustHex(t, "0368656c6cef"), codec.GuessBytes},
		{"not UTF-8", []byte{0xff, 0xfe, 'a'}, codec.GuessBytes},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, codec.Guess(tc.data), "%q", tc.data)
		})
	}
}

// TestGuessJavaBytes: the guess for every value Java wrote in codecs.json.
func TestGuessJavaBytes(t *testing.T) {
	want := map[string]string{
		"codec:string": codec.GuessString, "codec:long": codec.GuessString, "codec:long-neg": codec.GuessString,
		// JsonJackson writes String, Integer, Double and Boolean plain.
		"json:string": codec.GuessString, "json:int": codec.GuessString, "json:double": codec.GuessString, "json:bool": codec.GuessString,
		"json:long": codec.GuessJSON, "json:pojo": codec.GuessJSON, "json:map": codec.GuessJSON, "json:list": codec.GuessJSON,
		"typedjson:pojo": codec.GuessString,
		// A MessagePack positive fixint is an ASCII byte: 42 is "*".
		"msgpack:int":    codec.GuessString,
		"msgpack:string": codec.GuessMsgPack, "msgpack:long": codec.GuessMsgPack, "msgpack:double": codec.GuessMsgPack,
		"msgpack:pojo": codec.GuessMsgPack, "msgpack:list": codec.GuessMsgPack,
	}
	f, err := vectors.Load("codecs.json")
	require.NoError(t, err)
	seen := 0
	for _, sc := range f.Scenarios {
		for _, st := range sc.Steps {
			if st.Op != "set" {
				continue
			}
			state := st.Raw["state"].(map[string]any)[st.Object].(map[string]any)
			w, ok := want[st.Object]
			require.True(t, ok, "no expected guess for %s", st.Object)
			require.Equal(t, w, codec.Guess(mustHex(t, state["hex"].(string))), st.Object)
			seen++
		}
	}
	require.Equal(t, len(want), seen)
}

// FuzzGuess: Guess never panics, and what it promises holds: the guessed
// Jackson codec decodes the bytes; a guessed string is valid UTF-8.
func FuzzGuess(f *testing.F) {
	f.Add([]byte(`{"@class":"com.x.Y","a":1}`))
	f.Add([]byte(`["java.lang.Long",42]`))
	f.Add(mustHex(f, "92ae6a6176612e6c616e672e4c6f6e672a"))
	f.Add(mustHex(f, "a568656c6c6f"))
	f.Add(mustHex(f, "cb3ff8000000000000"))
	f.Add(mustHex(f, "dfffffffff"))
	f.Add([]byte("hello"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var v any
		switch g := codec.Guess(data); g {
		case codec.GuessJSON:
			require.NoError(t, codec.JsonJackson(nil).Decode(data, &v))
		case codec.GuessMsgPack:
			require.NoError(t, codec.MsgPackJackson(nil).Decode(data, &v))
		case codec.GuessString:
			require.True(t, utf8.Valid(data))
		case codec.GuessBytes:
		default:
			t.Fatalf("Guess returned %q", g)
		}
	})
}
