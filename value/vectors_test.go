package value_test

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson/codec"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/internal/vectors"
	"github.com/goredisson/redisson/source"
	"github.com/goredisson/redisson/value"
)

// interopCodec returns the Go codec for the Java codec a codecs.json step
// names, with the records' POJO registered.
func interopCodec(t testing.TB, javaName string) codec.Codec {
	t.Helper()
	types := codec.NewTypes().MustRegister(vectors.PersonClass, vectors.Person{})
	switch {
	case javaName == "StringCodec":
		return codec.String()
	case javaName == "LongCodec":
		return codec.Long()
	case javaName == "JsonJacksonCodec":
		return codec.JsonJackson(types)
	case strings.HasPrefix(javaName, "TypedJsonJacksonCodec"):
		return codec.TypedJsonJackson()
	case javaName == "MsgPackJacksonCodec":
		return codec.MsgPackJackson(types)
	}
	t.Fatalf("no Go codec for %s", javaName)
	return nil
}

// TestJavaVectors replays every codecs.json scenario through Redis: the Go
// actors set and get the same buckets with the same codecs, and after each
// step the outcome, the published messages (none) and the whole Redis state,
// stored bytes in hex included, must equal Java's record.
func TestJavaVectors(t *testing.T) {
	f, err := vectors.Load("codecs.json")
	require.NoError(t, err)
	require.Equal(t, "3.52.0", f.RedissonVersion)
	srv := redistest.StartServer(t)
	steps := 0
	for _, sc := range f.Scenarios {
		t.Run(sc.Name, func(t *testing.T) { steps += replay(t, srv, sc) })
	}
	require.Equal(t, 36, steps, "steps replayed")
}

func replay(t *testing.T, srv *redistest.Server, sc vectors.Scenario) int {
	ctx := context.Background()
	raw := redistest.Client(t, srv)
	require.NoError(t, raw.FlushAll(ctx).Err())
	clients := map[string]*source.Source{"C1": sourceOf(t, srv), "C2": sourceOf(t, srv)}
	n := vectors.NewNormalizer(sc.TTLGridMS)
	msgs, err := vectors.NewMessages(ctx, raw)
	require.NoError(t, err)
	defer msgs.Close()

	for _, st := range sc.Steps {
		require.Equal(t, "call", st.Kind)
		src := clients[sc.Actors[st.Actor]]
		c := interopCodec(t, st.Args["codec"].(string))
		written, ok := vectors.CodecValue(st.Object)
		require.True(t, ok, "no Go value for %s", st.Object)
		got := map[string]any{"ok": true}
		switch st.Op {
		case "set":
			require.NoError(t, value.NewBucket[any](src, st.Object, c).Set(ctx, written), "step %d", st.Step)
		case "get":
			class := st.Raw["result"].(map[string]any)["class"].(string)
			goType, ok := vectors.GoType(class)
			require.True(t, ok, "class %s", class)
			var v any
			if strings.HasPrefix(st.Args["codec"].(string), "TypedJsonJacksonCodec") {
				// No type information: the Go type plays TypedJsonJacksonCodec(Person.class).
				p, found, err := value.NewBucket[vectors.Person](src, st.Object, c).Get(ctx)
				require.NoError(t, err)
				require.True(t, found)
				v = p
			} else {
				var found bool
				v, found, err = value.NewBucket[any](src, st.Object, c).Get(ctx)
				require.NoError(t, err, "step %d", st.Step)
				require.True(t, found)
				require.Equal(t, goType, reflect.TypeOf(v), "step %d: Go type for %s", st.Step, class)
			}
			got["result"] = map[string]any{"class": class, "value": vectors.JSON(v), "equals_written": reflect.DeepEqual(v, written)}
		default:
			t.Fatalf("step %d: unexpected op %q", st.Step, st.Op)
		}
		m, err := msgs.Collect(ctx, n)
		require.NoError(t, err)
		got["messages"] = m
		got["state"], err = n.SnapshotHex(ctx, raw)
		require.NoError(t, err)

		want := map[string]any{"ok": st.Raw["ok"], "messages": st.Raw["messages"], "state": st.Raw["state"]}
		if r, ok := st.Raw["result"]; ok {
			want["result"] = r
		}
		require.Equal(t, vectors.JSON(want), vectors.JSON(got), "%s step %d (%s)", sc.Name, st.Step, st.Java)
	}
	return len(sc.Steps)
}
