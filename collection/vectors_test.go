package collection_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/codec"
	"github.com/goredisson/redisson/collection"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/internal/vectors"
)

// person is the Go twin of the records' org.goredisson.interop.Person.
type person = vectors.Person

var sampleUUID = uuid.MustParse("0f8fad5b-d9cb-469f-a165-70867728950e")

func ann() person {
	id := int64(7)
	return person{Name: "Ann", Age: 42, ID: &id, Count: 9, Score: 1.5, Active: true, Tags: []string{"a", "b"}}
}

// The collection scenarios of collections.json this package replays
// (set_cache and set_cache_eviction are RSetCache's, replayed by package
// setcache; the queue scenarios belong to package queue).
var collectionScenarios = []string{
	"collections.map_string", "collections.map_json", "collections.list",
	"collections.list_json", "collections.set", "collections.scored_sorted_set",
}

// TestJavaVectors replays the collection scenarios of collections.json of
// Redisson 3.52.0 and 4.7.0 step by step with Go actors on two clients:
// after each step the result, the messages (none), every Redis command the
// clients sent (the scripts' own calls included; only the EVALSHA lines,
// whose SHA-1 depends on the script text, are left out) and the whole
// Redis state must equal Java's.
func TestJavaVectors(t *testing.T) {
	srv := redistest.StartServer(t)
	for _, file := range []string{"collections.json", "redisson-4.7.0/collections.json"} {
		f, err := vectors.Load(file)
		require.NoError(t, err)
		v47 := strings.HasPrefix(file, "redisson-4.7.0/")
		seen := 0
		for _, sc := range f.Scenarios {
			if !slices.Contains(collectionScenarios, sc.Name) {
				continue
			}
			seen++
			t.Run(f.RedissonVersion+"/"+sc.Name, func(t *testing.T) {
				vectors.ReplayFresh(t, srv, sc, func(testing.TB) vectors.Actions[*redisson.Client, struct{}] {
					r := &collReplay{t: t, sc: sc, v47: v47, codecs: map[string]string{}}
					return r.actions()
				})
			})
		}
		require.Equal(t, len(collectionScenarios), seen, "%s: scenarios replayed", file)
	}
}

type actor = vectors.Actor[*redisson.Client, struct{}]

type collReplay struct {
	t      *testing.T
	sc     vectors.Scenario
	v47    bool
	codecs map[string]string // object → the codec its last call named
}

func (r *collReplay) codec(object string, st *vectors.Step) codec.Codec {
	name := r.codecs[object]
	if st != nil {
		name, _ = st.Args["codec"].(string)
		r.codecs[object] = name
	}
	switch name {
	case "StringCodec":
		return codec.String()
	case "JsonJacksonCodec":
		types := codec.NewTypes().MustRegister(vectors.PersonClass, person{})
		if r.v47 {
			return codec.JsonJackson(types, codec.UUIDTypeInfo())
		}
		return codec.JsonJackson(types)
	}
	r.t.Fatalf("object %s: unknown codec %q", object, name)
	return nil
}

var (
	intArg    = regexp.MustCompile(`^(-?[0-9]+) \(Integer\)$`)
	longArg   = regexp.MustCompile(`^(-?[0-9]+)L \(Long\)$`)
	doubleArg = regexp.MustCompile(`^(-?[0-9.]+) \(Double\)$`)
)

// javaValue is the Go value of a Java value as the records write it in
// args: "x" a String, `"10"` a String too, "10 (Integer)" an int32, "10L
// (Long)" an int64, "0.5 (Double)" a float64, "Person (…)" the sample
// POJO, "UUID" the sample UUID.
func javaValue(t *testing.T, s string) any {
	switch {
	case len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"':
		return s[1 : len(s)-1]
	case intArg.MatchString(s):
		n, _ := strconv.ParseInt(intArg.FindStringSubmatch(s)[1], 10, 32)
		return int32(n)
	case longArg.MatchString(s):
		n, _ := strconv.ParseInt(longArg.FindStringSubmatch(s)[1], 10, 64)
		return n
	case doubleArg.MatchString(s):
		f, _ := strconv.ParseFloat(doubleArg.FindStringSubmatch(s)[1], 64)
		return f
	case strings.HasPrefix(s, "Person"):
		return ann()
	case s == "UUID":
		return sampleUUID
	}
	return s
}

// queryValue is the Go value of a Java literal in a query's parentheses:
// "b" a String, 1L a Long, 2 an Integer.
func queryValue(s string) any {
	if n, err := strconv.ParseInt(strings.TrimSuffix(s, "L"), 10, 64); err == nil {
		if strings.HasSuffix(s, "L") {
			return n
		}
		return int32(n)
	}
	return strings.Trim(s, `"`)
}

// javaClass is the Java class of what Go decoded into an any.
func javaClass(v any) string {
	switch v.(type) {
	case string:
		return "java.lang.String"
	case int32:
		return "java.lang.Integer"
	case int64:
		return "java.lang.Long"
	case float64:
		return "java.lang.Double"
	case bool:
		return "java.lang.Boolean"
	case uuid.UUID:
		return "java.util.UUID"
	}
	return fmt.Sprintf("unmapped %T", v)
}

// javaTypes is the "types" record of a decoded value: the class, and for
// a POJO or a list the classes inside.
func javaTypes(v any) any {
	switch x := v.(type) {
	case person:
		tags := make([]any, len(x.Tags))
		for i := range tags {
			tags[i] = "java.lang.String"
		}
		var nick any
		if x.Nick != nil {
			nick = "java.lang.String"
		}
		return map[string]any{"class": vectors.PersonClass, "fields": map[string]any{
			"name": "java.lang.String", "age": "java.lang.Integer", "id": "java.lang.Long", "count": "java.lang.Long",
			"score": "java.lang.Double", "active": "java.lang.Boolean",
			"tags": map[string]any{"class": "java.util.ArrayList", "elements": tags}, "nick": nick,
		}}
	case []any:
		els := make([]any, len(x))
		for i, e := range x {
			els[i] = javaTypes(e)
		}
		return map[string]any{"class": "java.util.ArrayList", "elements": els}
	}
	return javaClass(v)
}

func orNil[T any](v T, ok bool, err error) (any, error) {
	if err != nil || !ok {
		return nil, err
	}
	return v, nil
}

// asSet returns got in the order of want when both hold the same elements:
// Java renders entrySet() and readAllEntrySet() as sets, whose order is
// Java's hash order, not Redis'.
func asSet(got []any, want any) []any {
	w, ok := want.([]any)
	if !ok {
		return got
	}
	key := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	a, b := make([]string, len(got)), make([]string, len(w))
	for i := range got {
		a[i] = key(vectors.JSON(got[i]))
	}
	for i := range w {
		b[i] = key(w[i])
	}
	slices.Sort(a)
	slices.Sort(b)
	if slices.Equal(a, b) {
		return w
	}
	return got
}

// want returns what the record has for query q of the scenario's query
// step on object.
func (r *collReplay) want(object, q string) any {
	for _, st := range r.sc.Steps {
		if st.Kind == "query" && st.Object == object {
			if res, ok := st.Raw["result"].(map[string]any); ok {
				if v, ok := res[q]; ok {
					return v
				}
			}
		}
	}
	return nil
}

func (r *collReplay) mapOf(a *actor, object string, st *vectors.Step) *collection.Map[string, any] {
	return redisson.NewMap[string, any](a.Client, object, r.codec(object, st))
}

func (r *collReplay) listOf(a *actor, object string, st *vectors.Step) *collection.List[any] {
	return redisson.NewList[any](a.Client, object, r.codec(object, st))
}

func (r *collReplay) setOf(a *actor, object string, st *vectors.Step) *collection.Set[any] {
	return redisson.NewSet[any](a.Client, object, r.codec(object, st))
}

func (r *collReplay) zsetOf(a *actor, object string, st *vectors.Step) *collection.ScoredSortedSet[any] {
	return redisson.NewScoredSortedSet[any](a.Client, object, r.codec(object, st))
}

func (r *collReplay) kind() string {
	switch {
	case strings.HasPrefix(r.sc.Name, "collections.map"):
		return "map"
	case strings.HasPrefix(r.sc.Name, "collections.list"):
		return "list"
	case r.sc.Name == "collections.set":
		return "set"
	}
	return "zset"
}

func (r *collReplay) arg(st vectors.Step, name string) any {
	s, ok := st.Args[name].(string)
	if !ok {
		r.t.Fatalf("step %d: no %s", st.Step, name)
	}
	return javaValue(r.t, s)
}

func index(st vectors.Step) int64 { n, _ := st.Int("index"); return n }

func (r *collReplay) actions() vectors.Actions[*redisson.Client, struct{}] {
	clients := 0
	call := func(m map[string]func(ctx context.Context, a *actor, st vectors.Step) (any, error)) map[string]vectors.Call[*redisson.Client, struct{}] {
		out := map[string]vectors.Call[*redisson.Client, struct{}]{}
		for op, fn := range m {
			out[op] = vectors.Call[*redisson.Client, struct{}](fn)
		}
		return out
	}
	type fn = func(ctx context.Context, a *actor, st vectors.Step) (any, error)
	calls := map[string]map[string]fn{
		"map": {
			"put": func(ctx context.Context, a *actor, st vectors.Step) (any, error) {
				return orNil(r.mapOf(a, st.Object, &st).Put(ctx, r.arg(st, "key").(string), r.arg(st, "value")))
			},
			"putIfAbsent": func(ctx context.Context, a *actor, st vectors.Step) (any, error) {
				return orNil(r.mapOf(a, st.Object, &st).PutIfAbsent(ctx, r.arg(st, "key").(string), r.arg(st, "value")))
			},
			"fastPut": func(ctx context.Context, a *actor, st vectors.Step) (any, error) {
				return r.mapOf(a, st.Object, &st).FastPut(ctx, r.arg(st, "key").(string), r.arg(st, "value"))
			},
			"addAndGet": func(ctx context.Context, a *actor, st vectors.Step) (any, error) {
				return r.mapOf(a, st.Object, &st).AddAndGet(ctx, r.arg(st, "key").(string), r.arg(st, "delta"))
			},
			"getAll": func(ctx context.Context, a *actor, st vectors.Step) (any, error) {
				var keys []string
				for _, k := range st.Args["keys"].([]any) {
					keys = append(keys, k.(string))
				}
				got, err := r.mapOf(a, st.Object, &st).GetAll(ctx, keys...)
				if err != nil {
					return nil, err
				}
				values, types := map[string]any{}, map[string]any{}
				for k, v := range got {
					values[k], types[k] = v, javaClass(v)
				}
				return map[string]any{"class": "java.util.LinkedHashMap", "value": values,
					"types": map[string]any{"class": "java.util.LinkedHashMap", "values": types}}, nil
			},
			"get": func(ctx context.Context, a *actor, st vectors.Step) (any, error) {
				v, ok, err := r.mapOf(a, st.Object, &st).Get(ctx, r.arg(st, "key").(string))
				if err != nil || !ok {
					return nil, err
				}
				return map[string]any{"class": javaClass(v), "value": v}, nil
			},
			"remove": func(ctx context.Context, a *actor, st vectors.Step) (any, error) {
				return orNil(r.mapOf(a, st.Object, &st).Remove(ctx, r.arg(st, "key").(string)))
			},
			"fastRemove": func(ctx context.Context, a *actor, st vectors.Step) (any, error) {
				var keys []string
				for _, k := range st.Args["keys"].([]any) {
					keys = append(keys, k.(string))
				}
				return r.mapOf(a, st.Object, &st).FastRemove(ctx, keys...)
			},
		},
		"list": {
			"add": func(ctx context.Context, a *actor, st vectors.Step) (any, error) {
				l := r.listOf(a, st.Object, &st)
				if _, at := st.Args["index"]; at {
					return nil, l.Insert(ctx, index(st), r.arg(st, "value"))
				}
				return true, l.Add(ctx, r.arg(st, "value"))
			},
			"addAll": func(ctx context.Context, a *actor, st vectors.Step) (any, error) {
				// "[\"s\", 1 (Integer), 2L (Long), UUID, Person]"
				vals := []any{"s", int32(1), int64(2), sampleUUID, ann()}
				return true, r.listOf(a, st.Object, &st).AddAll(ctx, vals...)
			},
			"set": func(ctx context.Context, a *actor, st vectors.Step) (any, error) {
				return r.listOf(a, st.Object, &st).Set(ctx, index(st), r.arg(st, "value"))
			},
			"remove": func(ctx context.Context, a *actor, st vectors.Step) (any, error) {
				l := r.listOf(a, st.Object, &st)
				if _, at := st.Args["index"]; at {
					return orNil(l.RemoveAt(ctx, index(st)))
				}
				return l.Remove(ctx, r.arg(st, "value"))
			},
			"get": func(ctx context.Context, a *actor, st vectors.Step) (any, error) {
				return orNil(r.listOf(a, st.Object, &st).Get(ctx, index(st)))
			},
			"readAll": func(ctx context.Context, a *actor, st vectors.Step) (any, error) {
				all, err := r.listOf(a, st.Object, &st).ReadAll(ctx)
				if err != nil {
					return nil, err
				}
				return map[string]any{"class": "java.util.ArrayList", "value": all, "types": javaTypes(all)}, nil
			},
		},
		"set": {
			"add": func(ctx context.Context, a *actor, st vectors.Step) (any, error) {
				return r.setOf(a, st.Object, &st).Add(ctx, r.arg(st, "value"))
			},
			"remove": func(ctx context.Context, a *actor, st vectors.Step) (any, error) {
				return r.setOf(a, st.Object, &st).Remove(ctx, r.arg(st, "value"))
			},
		},
		"zset": {
			"add": func(ctx context.Context, a *actor, st vectors.Step) (any, error) {
				score, _ := st.Args["score"].(float64)
				return r.zsetOf(a, st.Object, &st).Add(ctx, score, r.arg(st, "value"))
			},
			"addScore": func(ctx context.Context, a *actor, st vectors.Step) (any, error) {
				delta, _ := st.Args["delta"].(float64)
				return r.zsetOf(a, st.Object, &st).AddScore(ctx, r.arg(st, "value"), delta)
			},
			"pollFirst": func(ctx context.Context, a *actor, st vectors.Step) (any, error) {
				return orNil(r.zsetOf(a, st.Object, &st).PollFirst(ctx))
			},
			"pollLast": func(ctx context.Context, a *actor, st vectors.Step) (any, error) {
				return orNil(r.zsetOf(a, st.Object, &st).PollLast(ctx))
			},
		},
	}
	type qfn = func(ctx context.Context, a *actor, object string, _ *actor) (any, error)
	queries := map[string]map[string]qfn{
		"map": {
			// new ArrayList<>(map.entrySet()) asks for the size first
			// (HLEN), then iterates (HSCAN … COUNT 10).
			"entrySet.iterator": func(ctx context.Context, a *actor, object string, _ *actor) (any, error) {
				m := r.mapOf(a, object, nil)
				if _, err := m.Size(ctx); err != nil {
					return nil, err
				}
				var out []any
				for e, err := range m.Entries(ctx) {
					if err != nil {
						return nil, err
					}
					out = append(out, []any{e.Key, e.Value})
				}
				return asSet(out, r.want(object, "entrySet.iterator")), nil
			},
			"readAllEntrySet": func(ctx context.Context, a *actor, object string, _ *actor) (any, error) {
				all, err := r.mapOf(a, object, nil).ReadAll(ctx)
				if err != nil {
					return nil, err
				}
				var out []any
				for k, v := range all {
					out = append(out, []any{k, v})
				}
				return asSet(out, r.want(object, "readAllEntrySet")), nil
			},
			"size": func(ctx context.Context, a *actor, object string, _ *actor) (any, error) {
				return r.mapOf(a, object, nil).Size(ctx)
			},
		},
		"list": {
			"readAll": func(ctx context.Context, a *actor, object string, _ *actor) (any, error) {
				return r.listOf(a, object, nil).ReadAll(ctx)
			},
			"size": func(ctx context.Context, a *actor, object string, _ *actor) (any, error) {
				return r.listOf(a, object, nil).Size(ctx)
			},
		},
		"set": {
			"readAll": func(ctx context.Context, a *actor, object string, _ *actor) (any, error) {
				all, err := r.setOf(a, object, nil).ReadAll(ctx)
				if err != nil {
					return nil, err
				}
				slices.SortFunc(all, func(x, y any) int { return strings.Compare(fmt.Sprint(x), fmt.Sprint(y)) })
				return all, nil
			},
			"size": func(ctx context.Context, a *actor, object string, _ *actor) (any, error) {
				return r.setOf(a, object, nil).Size(ctx)
			},
		},
		"zset": {
			"readAll": func(ctx context.Context, a *actor, object string, _ *actor) (any, error) {
				return r.zsetOf(a, object, nil).ReadAll(ctx)
			},
		},
	}
	type vfn = func(ctx context.Context, a *actor, object, arg string) (any, error)
	valueQueries := map[string]map[string]vfn{
		"map": {
			"containsKey": func(ctx context.Context, a *actor, object, arg string) (any, error) {
				return r.mapOf(a, object, nil).ContainsKey(ctx, queryValue(arg).(string))
			},
		},
		"list": {
			"indexOf": func(ctx context.Context, a *actor, object, arg string) (any, error) {
				return r.listOf(a, object, nil).IndexOf(ctx, queryValue(arg))
			},
		},
		"set": {
			"contains": func(ctx context.Context, a *actor, object, arg string) (any, error) {
				return r.setOf(a, object, nil).Contains(ctx, queryValue(arg))
			},
		},
		"zset": {
			"rank": func(ctx context.Context, a *actor, object, arg string) (any, error) {
				return orNil(r.zsetOf(a, object, nil).Rank(ctx, queryValue(arg)))
			},
			"revRank": func(ctx context.Context, a *actor, object, arg string) (any, error) {
				return orNil(r.zsetOf(a, object, nil).RevRank(ctx, queryValue(arg)))
			},
			"getScore": func(ctx context.Context, a *actor, object, arg string) (any, error) {
				return orNil(r.zsetOf(a, object, nil).Score(ctx, queryValue(arg)))
			},
		},
	}
	qs := map[string]vectors.Query[*redisson.Client, struct{}]{}
	for name, q := range queries[r.kind()] {
		qs[name] = q
	}
	vqs := map[string]vectors.ValueQuery[*redisson.Client, struct{}]{}
	for name, q := range valueQueries[r.kind()] {
		vqs[name] = q
	}
	return vectors.Actions[*redisson.Client, struct{}]{
		NewClient: func(t testing.TB, srv *redistest.Server, sc vectors.Scenario) (*redisson.Client, string) {
			clients++
			name := fmt.Sprintf("C%d", clients) // the command log's names
			rdb := srv.NewClient(func(o *redis.Options) { o.ClientName = name })
			t.Cleanup(func() { _ = rdb.Close() })
			c, err := redisson.New(rdb)
			require.NoError(t, err)
			t.Cleanup(func() { _ = c.Close() })
			return c, c.ID()
		},
		Calls:        call(calls[r.kind()]),
		Queries:      qs,
		ValueQueries: vqs,
		ErrorClass: func(err error) string {
			if errors.Is(err, redisson.ErrWrongType) {
				return "org.redisson.client.RedisException" // ERR hash value is not a float
			}
			return fmt.Sprintf("unmapped %v", err)
		},
		AllCommands: true,
	}
}
