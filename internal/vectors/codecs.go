package vectors

import (
	"context"
	"encoding/hex"
	"reflect"

	"github.com/redis/go-redis/v9"
)

// Person is the Go twin of codecs.json's POJO org.goredisson.interop.Person
// (declared in the Java capture program): String name, int age, Long id,
// long count, double score, boolean active, List<String> tags, String nick.
type Person struct {
	Name   string   `json:"name"`
	Age    int32    `json:"age"`
	ID     *int64   `json:"id"`
	Count  int64    `json:"count"`
	Score  float64  `json:"score"`
	Active bool     `json:"active"`
	Tags   []string `json:"tags"`
	Nick   *string  `json:"nick"`
}

// PersonClass is Person's Java class.
const PersonClass = "org.goredisson.interop.Person"

// ann is the Person every codecs.json POJO scenario writes.
func ann() Person {
	id := int64(7)
	return Person{Name: "Ann", Age: 42, ID: &id, Count: 9, Score: 1.5, Active: true, Tags: []string{"a", "b"}}
}

// CodecValue returns the Go value that stands for the java_value a
// codecs.json "set" step writes to object, and whether there is one.
func CodecValue(object string) (any, bool) {
	v, ok := map[string]any{
		"codec:string":   "héllo",
		"codec:long":     int64(42),
		"codec:long-neg": int64(-7),
		"json:string":    "hello",
		"json:int":       int32(42),
		"json:long":      int64(42),
		"json:double":    1.5,
		"json:bool":      true,
		"json:pojo":      ann(),
		"json:map":       map[string]any{"a": int32(1), "b": "x", "c": int64(2), "d": []any{int32(1), int32(2)}},
		"json:list":      []any{int32(1), "two", int64(3), 4.5, true, nil},
		"typedjson:pojo": ann(),
		"msgpack:string": "hello",
		"msgpack:int":    int32(42),
		"msgpack:long":   int64(42),
		"msgpack:double": 1.5,
		"msgpack:pojo":   ann(),
		"msgpack:list":   []any{int32(1), "two", int64(3), 4.5, true, nil},
	}[object]
	return v, ok
}

// GoType returns the Go type a value of a Java class decodes to (the
// "class" of a codecs.json get result), and whether it is known.
func GoType(javaClass string) (reflect.Type, bool) {
	t, ok := map[string]reflect.Type{
		"java.lang.String":    reflect.TypeFor[string](),
		"java.lang.Long":      reflect.TypeFor[int64](),
		"java.lang.Integer":   reflect.TypeFor[int32](),
		"java.lang.Double":    reflect.TypeFor[float64](),
		"java.lang.Boolean":   reflect.TypeFor[bool](),
		"java.util.HashMap":   reflect.TypeFor[map[string]any](),
		"java.util.ArrayList": reflect.TypeFor[[]any](),
		PersonClass:           reflect.TypeFor[Person](),
	}[javaClass]
	return t, ok
}

// SnapshotHex is Snapshot plus, for string keys, the "hex" field of
// codecs.json: the exact stored bytes in lowercase hex.
func (n *Normalizer) SnapshotHex(ctx context.Context, rdb *redis.Client) (map[string]any, error) {
	state, err := n.Snapshot(ctx, rdb)
	if err != nil {
		return nil, err
	}
	keys, err := rdb.Keys(ctx, "*").Result()
	if err != nil {
		return nil, err
	}
	for _, k := range keys {
		entry, ok := state[n.Key(k)].(map[string]any)
		if !ok || entry["type"] != "string" {
			continue
		}
		v, err := rdb.Get(ctx, k).Result()
		if err != nil {
			return nil, err
		}
		entry["hex"] = hex.EncodeToString([]byte(v))
	}
	return state, nil
}
