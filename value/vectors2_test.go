package value_test

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson/codec"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/internal/vectors"
	"github.com/goredisson/redisson/source"
	"github.com/goredisson/redisson/value"
)

// Go twins of codecs2.json's Java classes (org.goredisson.interop).
type (
	status2 string

	item2 struct {
		Sku   string     `json:"sku"`
		Qty   *int32     `json:"qty"`
		Price *int64     `json:"price"`
		Ref   *uuid.UUID `json:"ref"`
	}

	order2 struct {
		ID      *uuid.UUID     `json:"id"`
		Created *time.Time     `json:"created"`
		Amount  *codec.Decimal `json:"amount"`
		Big     *big.Int       `json:"big"`
		Status  *status2       `json:"status"`
		Blob    []byte         `json:"blob"`
		Items   []item2        `json:"items"`
		Attrs   map[string]any `json:"attrs"`
		Tags    []string       `json:"tags"`
		Note    *string        `json:"note"`
		Qty     *int32         `json:"qty"`
		Total   *int64         `json:"total"`
		Count   int64          `json:"count"`
		N       int32          `json:"n"`
		Ratio   float64        `json:"ratio"`
		Main    *item2         `json:"main"`
	}
)

func codecs2Types() *codec.Types {
	return codec.NewTypes().
		MustRegister("org.goredisson.interop.Status", status2("")).
		MustRegister("org.goredisson.interop.Item", item2{}).
		MustRegister("org.goredisson.interop.Order", order2{})
}

// javaClassTypes is the Go type standing for a Java class of the records.
var javaClassTypes = map[string]reflect.Type{
	"java.lang.String":              reflect.TypeFor[string](),
	"java.lang.Character":           reflect.TypeFor[string](),
	"java.lang.Integer":             reflect.TypeFor[int32](),
	"java.lang.Long":                reflect.TypeFor[int64](),
	"java.lang.Short":               reflect.TypeFor[int16](),
	"java.lang.Byte":                reflect.TypeFor[int8](),
	"java.lang.Float":               reflect.TypeFor[float32](),
	"java.lang.Double":              reflect.TypeFor[float64](),
	"java.math.BigInteger":          reflect.TypeFor[*big.Int](),
	"java.math.BigDecimal":          reflect.TypeFor[codec.Decimal](),
	"java.util.Date":                reflect.TypeFor[time.Time](),
	"java.time.Instant":             reflect.TypeFor[time.Time](), // StringCodec only
	"java.util.UUID":                reflect.TypeFor[uuid.UUID](),
	"java.util.HashMap":             reflect.TypeFor[map[string]any](),
	"java.util.ArrayList":           reflect.TypeFor[[]any](),
	"[B":                            reflect.TypeFor[[]byte](),
	"org.goredisson.interop.Status": reflect.TypeFor[status2](),
	"org.goredisson.interop.Item":   reflect.TypeFor[item2](),
	"org.goredisson.interop.Order":  reflect.TypeFor[order2](),
}

// codecs2File is a codecs2.json: the same scenarios as vectors.File, read
// with exact numbers.
type codecs2File struct {
	RedissonVersion string `json:"redisson_version"`
	Scenarios       []struct {
		Name      string            `json:"name"`
		TTLGridMS int64             `json:"ttl_grid_ms"`
		Actors    map[string]string `json:"actors"`
		Steps     []map[string]any  `json:"steps"`
	} `json:"scenarios"`
}

// The records are kept once, next to the codec replay that reads them.
var codecs2Paths = map[string]string{
	"3.52.0": "../codec/testdata/interop-vectors/codecs2.json",
	"4.7.0":  "../codec/testdata/interop-vectors/redisson-4.7.0/codecs2.json",
}

// goSkips are the set steps a bucket cannot replay byte for byte, and why
// (codec.TestVectors2 pins what Go writes for them).
var goSkips = map[string]string{
	"c2:order":       "a Go map and slice are a HashMap and an ArrayList (Java: LinkedHashMap, TreeSet)",
	"c2:typed-order": "a Go map is written in HashMap order (Java: LinkedHashMap insertion order)",
	"s:date":         "Date.toString: a Go time.Time is written as Instant.toString",
}

// refusedByJava is what a Go bucket does with the bytes of the get steps
// Java refused: the Go type it reads into and the error it gives (nil: Go
// reads them; codec.TestVectors2 checks the values).
func refusedByJava(v47 bool) map[string]struct {
	into reflect.Type
	err  error
} {
	type r = struct {
		into reflect.Type
		err  error
	}
	anyType, order, item := reflect.TypeFor[any](), reflect.TypeFor[order2](), reflect.TypeFor[item2]()
	m := map[string]r{
		"codec2.json_time_go_bytes#14": {reflect.TypeFor[time.Time](), codec.ErrWrongClass},
		"codec2.json_numbers#83":       {anyType, codec.ErrDecode},
		"codec2.json_pojo_nested#5":    {order, codec.ErrWrongClass},
		"codec2.json_pojo_nested#8":    {order, nil}, // a bare number for a Date field
		"codec2.json_pojo_nested#14":   {order, nil}, // a plain array for a List field
		"codec2.string_long#32":        {anyType, codec.ErrDecode},
		"codec2.string_long#35":        {anyType, codec.ErrDecode},
		"codec2.string_long#38":        {anyType, codec.ErrDecode},
	}
	if v47 { // 4.7 refuses a UUID field as plain text
		m["codec2.json_uuid#26"] = r{item, nil}
		m["codec2.json_pojo_nested#11"] = r{order, nil}
	}
	return m
}

// TestJavaVectors2 replays codecs2.json of Redisson 3.52.0 and 4.7.0
// through Redis with buckets: each raw step is sent as recorded, each set
// step writes the Go value that Java's bytes decode to (the Go type of the
// Java class written) with the same codec, each get step reads with a
// bucket; after every step the outcome, the messages (none) and the whole
// Redis state, stored bytes in hex included, must equal Java's.
func TestJavaVectors2(t *testing.T) {
	srv := redistest.StartServer(t)
	for _, version := range []string{"3.52.0", "4.7.0"} {
		t.Run(version, func(t *testing.T) {
			data, err := os.ReadFile(codecs2Paths[version])
			require.NoError(t, err)
			d := json.NewDecoder(bytes.NewReader(data))
			d.UseNumber()
			var f codecs2File
			require.NoError(t, d.Decode(&f))
			require.Equal(t, version, f.RedissonVersion)
			steps, skipped := 0, 0
			for _, sc := range f.Scenarios {
				t.Run(sc.Name, func(t *testing.T) {
					n, s := replay2(t, srv, version == "4.7.0", sc.Name, sc.TTLGridMS, sc.Actors, sc.Steps)
					steps += n
					skipped += s
				})
			}
			require.Equal(t, 257, steps, "steps")
			t.Logf("%d steps replayed; %d set steps stored Java's bytes: no Go counterpart, or no byte-identical Go form (see codec.TestVectors2)", steps, skipped)
		})
	}
}

func replay2(t *testing.T, srv *redistest.Server, v47 bool, scenario string, grid int64, actors map[string]string,
	steps []map[string]any) (replayed, skipped int) {
	ctx := context.Background()
	raw := redistest.Client(t, srv)
	require.NoError(t, raw.FlushAll(ctx).Err())
	clients := map[string]*source.Source{"C1": sourceOf(t, srv), "C2": sourceOf(t, srv)}
	norm := vectors.NewNormalizer(grid)
	msgs, err := vectors.NewMessages(ctx, raw)
	require.NoError(t, err)
	defer msgs.Close()

	for _, st := range steps {
		id := fmt.Sprintf("%s#%s", scenario, st["step"])
		got := map[string]any{}
		want := map[string]any{"messages": st["messages"], "state": st["state"]}
		switch st["kind"] {
		case "raw":
			var args []any
			for _, a := range st["command"].([]any) {
				if h, ok := a.(map[string]any); ok {
					b, err := hex.DecodeString(h["hex"].(string))
					require.NoError(t, err)
					a = string(b)
				}
				args = append(args, a)
			}
			reply, err := raw.Do(ctx, args...).Result()
			require.NoError(t, err, id)
			got["reply"], want["reply"] = reply, st["reply"]
		case "call":
			src := clients[actors[st["actor"].(string)]]
			args := st["args"].(map[string]any)
			name := args["codec"].(string)
			c, typedInto := codec2For(t, name, v47)
			object := st["object"].(string)
			switch st["op"] {
			case "set":
				into, ok := javaClassTypes[args["java_class"].(string)]
				_, skip := goSkips[object]
				duration := args["java_class"] == "java.time.Duration"
				if skip || (!ok && !duration) || (ok && st["ok"] != true) {
					// No Go value (or none with Java's bytes) stands for it:
					// Java's bytes are stored as they are, for the get steps.
					if st["ok"] == true {
						require.NoError(t, raw.Set(ctx, object, recordedBytes(t, st, object), 0).Err(), id)
					}
					got["ok"], want["ok"] = st["ok"] == true, st["ok"]
					skipped++
					break
				}
				var v any = 1500 * time.Millisecond
				if !duration {
					// The Go value is what Java's bytes decode to.
					javaBytes := recordedBytes(t, st, object)
					p := reflect.New(into)
					require.NoError(t, c.Decode(javaBytes, p.Interface()), id)
					v = p.Elem().Interface()
				}
				err := value.NewBucket[any](src, object, c).Set(ctx, v)
				if st["ok"] != true {
					require.ErrorIs(t, err, codec.ErrUnsupportedType, "%s: Java refused it", id)
					require.ErrorIs(t, err, codec.ErrEncode, id)
				} else {
					require.NoError(t, err, id)
				}
				got["ok"], want["ok"] = st["ok"] == true, st["ok"]
			case "get":
				into := typedInto
				if into == nil {
					into = reflect.TypeFor[any]()
				}
				v, found, err := getAs(ctx, src, object, c, into)
				javaOK := st["ok"] == true
				switch {
				case javaOK:
					require.NoError(t, err, id)
					require.True(t, found, id)
					class := st["result"].(map[string]any)["class"].(string)
					want := javaClassTypes[class]
					if class == "java.lang.Character" {
						want = reflect.TypeFor[string]()
					}
					gt := reflect.TypeOf(v)
					if gt != nil && gt.Kind() == reflect.Pointer && want.Kind() != reflect.Pointer {
						gt = gt.Elem()
					}
					require.Equal(t, want, gt, "%s: Go type of a %s", id, class)
				default:
					r, ok := refusedByJava(v47)[id]
					require.True(t, ok, "%s: Java refused it; no Go expectation", id)
					_, _, err = getAs(ctx, src, object, c, r.into)
					if r.err == nil {
						require.NoError(t, err, "%s: Go reads what Java refused", id)
					} else {
						require.ErrorIs(t, err, r.err, id)
						require.ErrorIs(t, err, codec.ErrDecode, id)
					}
				}
				got["ok"], want["ok"] = javaOK, st["ok"]
			default:
				t.Fatalf("%s: unexpected op %v", id, st["op"])
			}
		default:
			t.Fatalf("%s: unexpected kind %v", id, st["kind"])
		}
		m, err := msgs.Collect(ctx, norm)
		require.NoError(t, err)
		got["messages"] = m
		got["state"], err = norm.SnapshotHex(ctx, raw)
		require.NoError(t, err)
		require.Equal(t, vectors.JSON(want), vectors.JSON(got), "%s", id)
		replayed++
	}
	return replayed, skipped
}

// getAs reads a bucket into a value of type into.
func getAs(ctx context.Context, src *source.Source, name string, c codec.Codec, into reflect.Type) (any, bool, error) {
	switch into {
	case reflect.TypeFor[any]():
		return value.NewBucket[any](src, name, c).Get(ctx)
	case reflect.TypeFor[time.Time]():
		return value.NewBucket[time.Time](src, name, c).Get(ctx)
	case reflect.TypeFor[uuid.UUID]():
		return value.NewBucket[uuid.UUID](src, name, c).Get(ctx)
	case reflect.TypeFor[order2]():
		return value.NewBucket[order2](src, name, c).Get(ctx)
	case reflect.TypeFor[item2]():
		return value.NewBucket[item2](src, name, c).Get(ctx)
	case reflect.TypeFor[codec.Decimal]():
		return value.NewBucket[codec.Decimal](src, name, c).Get(ctx)
	case reflect.TypeFor[int64]():
		return value.NewBucket[int64](src, name, c).Get(ctx)
	case reflect.TypeFor[status2]():
		return value.NewBucket[status2](src, name, c).Get(ctx)
	case reflect.TypeFor[[]byte]():
		return value.NewBucket[[]byte](src, name, c).Get(ctx)
	}
	return nil, false, errors.New("no bucket type for " + into.String())
}

// codec2For returns the Go codec for a record's codec name and, for a
// TypedJsonJacksonCodec(X), the Go type standing for X.
func codec2For(t *testing.T, name string, v47 bool) (codec.Codec, reflect.Type) {
	t.Helper()
	var opts []codec.Option
	if v47 {
		opts = append(opts, codec.UUIDTypeInfo())
	}
	switch {
	case name == "JsonJacksonCodec":
		return codec.JsonJackson(codecs2Types(), opts...), nil
	case name == "StringCodec":
		return codec.String(), nil
	case name == "LongCodec":
		return codec.Long(), nil
	case strings.HasPrefix(name, "TypedJsonJacksonCodec("):
		class := strings.TrimSuffix(strings.TrimPrefix(name, "TypedJsonJacksonCodec("), ")")
		into, ok := map[string]reflect.Type{
			"Date": reflect.TypeFor[time.Time](), "UUID": reflect.TypeFor[uuid.UUID](), "Order": reflect.TypeFor[order2](),
			"BigDecimal": reflect.TypeFor[codec.Decimal](), "Long": reflect.TypeFor[int64](), "Status": reflect.TypeFor[status2](),
			"byte[]": reflect.TypeFor[[]byte](), "Instant": nil,
		}[class]
		require.True(t, ok, "no Go type for %s", name)
		return codec.TypedJsonJackson(), into
	}
	t.Fatalf("no Go codec for %s", name)
	return nil, nil
}

// recordedBytes returns the bytes the record shows stored under object.
func recordedBytes(t *testing.T, st map[string]any, object string) []byte {
	t.Helper()
	entry := st["state"].(map[string]any)[object].(map[string]any)
	b, err := hex.DecodeString(entry["hex"].(string))
	require.NoError(t, err)
	return b
}
