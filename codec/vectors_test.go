package codec_test

import (
	"encoding/hex"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson/codec"
	"github.com/goredisson/redisson/internal/vectors"
)

// interopTypes registers codecs.json's POJO.
func interopTypes() *codec.Types {
	return codec.NewTypes().MustRegister(vectors.PersonClass, vectors.Person{})
}

// codecByJavaName returns the Go codec for the Java codec a record names.
func codecByJavaName(t testing.TB, name string) codec.Codec {
	t.Helper()
	if strings.HasPrefix(name, "TypedJsonJacksonCodec(") {
		name = "TypedJsonJacksonCodec" // TypedJsonJacksonCodec(Person.class)
	}
	c, ok := map[string]codec.Codec{
		"StringCodec":           codec.String(),
		"LongCodec":             codec.Long(),
		"JsonJacksonCodec":      codec.JsonJackson(interopTypes()),
		"TypedJsonJacksonCodec": codec.TypedJsonJackson(),
		"MsgPackJacksonCodec":   codec.MsgPackJackson(interopTypes()),
	}[name]
	require.True(t, ok, "no Go codec for %s", name)
	return c
}

// TestVectorBytes checks every codecs.json step without Redis: a set step's
// Go value encodes to exactly the bytes Java stored; a get step decodes
// Java's bytes (into any, and into the Go type of the recorded class) to the
// value Java read, equal to the value written.
func TestVectorBytes(t *testing.T) {
	f, err := vectors.Load("codecs.json")
	require.NoError(t, err)
	require.Len(t, f.Scenarios, 7)
	steps := 0
	for _, sc := range f.Scenarios {
		t.Run(sc.Name, func(t *testing.T) {
			for _, st := range sc.Steps {
				c := codecByJavaName(t, st.Args["codec"].(string))
				state := st.Raw["state"].(map[string]any)[st.Object].(map[string]any)
				stored, err := hex.DecodeString(state["hex"].(string))
				require.NoError(t, err)
				written, ok := vectors.CodecValue(st.Object)
				require.True(t, ok, "no Go value for %s", st.Object)
				switch st.Op {
				case "set":
					got, err := c.Encode(written)
					require.NoError(t, err, "step %d", st.Step)
					require.Equal(t, hex.EncodeToString(stored), hex.EncodeToString(got), "step %d %s: %s", st.Step, st.Object, got)
				case "get":
					result := st.Raw["result"].(map[string]any)
					goType, ok := vectors.GoType(result["class"].(string))
					require.True(t, ok, "class %v", result["class"])
					if !strings.HasPrefix(st.Args["codec"].(string), "TypedJsonJacksonCodec") {
						var v any
						require.NoError(t, c.Decode(stored, &v), "step %d", st.Step)
						require.Equal(t, goType, reflect.TypeOf(v), "step %d: Go type of %v", st.Step, result["class"])
						require.Equal(t, result["value"], vectors.JSON(v), "step %d", st.Step)
						require.Equal(t, written, v, "step %d: equals_written", st.Step)
					}
					typed := reflect.New(goType)
					require.NoError(t, c.Decode(stored, typed.Interface()), "step %d", st.Step)
					require.Equal(t, result["value"], vectors.JSON(typed.Elem().Interface()), "step %d", st.Step)
					require.Equal(t, written, typed.Elem().Interface(), "step %d: equals_written", st.Step)
				default:
					t.Fatalf("unexpected op %q", st.Op)
				}
				steps++
			}
		})
	}
	require.Equal(t, 36, steps)
}
