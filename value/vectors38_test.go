package value_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/internal/vectors"
	"github.com/goredisson/redisson/value"
)

// TestJavaVectors38 replays the issue 38 records of RBuckets, RBucket's TTL
// operations, RAtomicDouble and RIdGenerator (buckets.json,
// atomicdouble.json, idgenerator.json) of Redisson 3.52.0 and 4.7.0 step
// by step with Go actors on two clients: after each step the result, the
// messages (none), every command the clients sent (the scripts' own calls
// included; not the EVALSHA lines, whose SHA-1 is our script text's) and
// the whole Redis state must equal Java's.
func TestJavaVectors38(t *testing.T) {
	srv := redistest.StartServer(t)
	want := map[string]int{"buckets.json": 3, "atomicdouble.json": 1, "idgenerator.json": 2}
	for _, dir := range []string{"", "redisson-4.7.0/"} {
		for file, n := range want {
			f, err := vectors.Load(dir + file)
			require.NoError(t, err)
			require.Len(t, f.Scenarios, n, "%s%s", dir, file)
			for _, sc := range f.Scenarios {
				t.Run(f.RedissonVersion+"/"+sc.Name, func(t *testing.T) {
					vectors.ReplayFresh(t, srv, sc, func(testing.TB) vectors.Actions[*redisson.Client, struct{}] {
						r := &valueReplay{t: t, ids: map[string]*value.IdGenerator{}}
						return r.actions()
					})
				})
			}
		}
	}
}

type vactor = vectors.Actor[*redisson.Client, struct{}]

type vfn = func(ctx context.Context, a *vactor, st vectors.Step) (any, error)

type valueReplay struct {
	t   *testing.T
	ids map[string]*value.IdGenerator // an id generator per actor and name, as Java's instances
}

func (r *valueReplay) bucket(a *vactor, st vectors.Step) *value.Bucket[any] {
	name, _ := st.Args["codec"].(string)
	if name == "" {
		name = "StringCodec"
	}
	return redisson.NewBucket[any](a.Client, st.Object, interopCodec(r.t, name))
}

func (r *valueReplay) buckets(a *vactor, st vectors.Step) *value.Buckets[any] {
	return redisson.NewBuckets[any](a.Client, interopCodec(r.t, st.Args["codec"].(string)))
}

func ms(st vectors.Step, name string) time.Duration {
	d, _ := st.Arg(name)
	return d
}

func num(st vectors.Step, name string) float64 {
	f, _ := st.Args[name].(float64)
	return f
}

// orNil is a Java result: the value, or null when there is none.
func orNil[T any](v T, ok bool, err error) (any, error) {
	if err != nil || !ok {
		return nil, err
	}
	return v, nil
}

func (r *valueReplay) id(a *vactor, object string) *value.IdGenerator {
	k := a.Name + "/" + object
	if r.ids[k] == nil {
		r.ids[k] = a.Client.IdGenerator(object)
	}
	return r.ids[k]
}

func entries(st vectors.Step) map[string]any {
	out := map[string]any{}
	for k, v := range st.Args["entries"].(map[string]any) {
		if f, ok := v.(float64); ok {
			v = int32(f) // the records' numbers are Java Integers
		}
		out[k] = v
	}
	return out
}

func (r *valueReplay) bucketCalls() map[string]vfn {
	return map[string]vfn{
		"set": func(ctx context.Context, a *vactor, st vectors.Step) (any, error) {
			if _, many := st.Args["entries"]; many {
				return nil, r.buckets(a, st).Set(ctx, entries(st))
			}
			return nil, r.bucket(a, st).SetTTL(ctx, st.Args["value"], ms(st, "ttl_ms"))
		},
		"get": func(ctx context.Context, a *vactor, st vectors.Step) (any, error) {
			var names []string
			for _, k := range st.Args["keys"].([]any) {
				names = append(names, k.(string))
			}
			return r.buckets(a, st).Get(ctx, names...)
		},
		"trySet": func(ctx context.Context, a *vactor, st vectors.Step) (any, error) {
			return r.buckets(a, st).TrySet(ctx, entries(st))
		},
		"setAndKeepTTL": func(ctx context.Context, a *vactor, st vectors.Step) (any, error) {
			return nil, r.bucket(a, st).SetKeepTTL(ctx, st.Args["value"])
		},
		"getAndExpire": func(ctx context.Context, a *vactor, st vectors.Step) (any, error) {
			return orNil(r.bucket(a, st).GetAndExpire(ctx, ms(st, "ttl_ms")))
		},
		"getAndClearExpire": func(ctx context.Context, a *vactor, st vectors.Step) (any, error) {
			return orNil(r.bucket(a, st).GetAndClearExpire(ctx))
		},
		"setIfAbsent": func(ctx context.Context, a *vactor, st vectors.Step) (any, error) {
			return r.bucket(a, st).SetIfAbsentTTL(ctx, st.Args["value"], ms(st, "ttl_ms"))
		},
		"setIfExists": func(ctx context.Context, a *vactor, st vectors.Step) (any, error) {
			return r.bucket(a, st).SetIfExistsTTL(ctx, st.Args["value"], ms(st, "ttl_ms"))
		},
		"getAndSet": func(ctx context.Context, a *vactor, st vectors.Step) (any, error) {
			return orNil(r.bucket(a, st).GetAndSetTTL(ctx, st.Args["value"], ms(st, "ttl_ms")))
		},
		"expire": func(ctx context.Context, a *vactor, st vectors.Step) (any, error) {
			return r.bucket(a, st).Expire(ctx, ms(st, "ttl_ms"))
		},
		"expireIfSet": func(ctx context.Context, a *vactor, st vectors.Step) (any, error) {
			return r.bucket(a, st).ExpireIf(ctx, ms(st, "ttl_ms"), value.ExpireIfSet)
		},
		"expireIfNotSet": func(ctx context.Context, a *vactor, st vectors.Step) (any, error) {
			return r.bucket(a, st).ExpireIf(ctx, ms(st, "ttl_ms"), value.ExpireIfNotSet)
		},
		"clearExpire": func(ctx context.Context, a *vactor, st vectors.Step) (any, error) {
			return r.bucket(a, st).ClearExpire(ctx)
		},
		"compareAndSet": func(ctx context.Context, a *vactor, st vectors.Step) (any, error) {
			if strings.HasPrefix(st.Object, "ad") {
				return a.Client.AtomicDouble(st.Object).CompareAndSet(ctx, num(st, "expect"), num(st, "update"))
			}
			return r.bucket(a, st).CompareAndSet(ctx, st.Args["expect"], st.Args["update"])
		},
		"getAndDelete": func(ctx context.Context, a *vactor, st vectors.Step) (any, error) {
			if strings.HasPrefix(st.Object, "ad") {
				return a.Client.AtomicDouble(st.Object).GetAndDelete(ctx)
			}
			return orNil(r.bucket(a, st).GetAndDelete(ctx))
		},
	}
}

// doubleCalls are atomicdouble.json's ops; "get", "set", "getAndSet",
// "compareAndSet" and "getAndDelete" share their names with the bucket's
// and are told apart by the object ("ad").
func (r *valueReplay) doubleCalls() map[string]vfn {
	ad := func(a *vactor, st vectors.Step) *value.AtomicDouble { return a.Client.AtomicDouble(st.Object) }
	return map[string]vfn{
		"get": func(ctx context.Context, a *vactor, st vectors.Step) (any, error) {
			return ad(a, st).Get(ctx)
		},
		"set": func(ctx context.Context, a *vactor, st vectors.Step) (any, error) {
			return nil, ad(a, st).Set(ctx, num(st, "value"))
		},
		"addAndGet": func(ctx context.Context, a *vactor, st vectors.Step) (any, error) {
			return ad(a, st).AddAndGet(ctx, num(st, "delta"))
		},
		"incrementAndGet": func(ctx context.Context, a *vactor, st vectors.Step) (any, error) {
			return ad(a, st).IncrementAndGet(ctx)
		},
		"decrementAndGet": func(ctx context.Context, a *vactor, st vectors.Step) (any, error) {
			return ad(a, st).DecrementAndGet(ctx)
		},
		"getAndAdd": func(ctx context.Context, a *vactor, st vectors.Step) (any, error) {
			return ad(a, st).GetAndAdd(ctx, num(st, "delta"))
		},
		"getAndSet": func(ctx context.Context, a *vactor, st vectors.Step) (any, error) {
			return ad(a, st).GetAndSet(ctx, num(st, "value"))
		},
	}
}

func (r *valueReplay) actions() vectors.Actions[*redisson.Client, struct{}] {
	calls := map[string]vectors.Call[*redisson.Client, struct{}]{}
	for op, fn := range r.bucketCalls() {
		calls[op] = vectors.Call[*redisson.Client, struct{}](fn)
	}
	doubles := r.doubleCalls()
	for op, fn := range doubles {
		if bucketFn, shared := calls[op]; shared {
			calls[op] = func(ctx context.Context, a *vactor, st vectors.Step) (any, error) {
				if st.Object == "ad" {
					return fn(ctx, a, st)
				}
				return bucketFn(ctx, a, st)
			}
			continue
		}
		calls[op] = vectors.Call[*redisson.Client, struct{}](fn)
	}
	calls["tryInit"] = func(ctx context.Context, a *vactor, st vectors.Step) (any, error) {
		first, _ := st.Int("value")
		size, _ := st.Int("allocation_size")
		return r.id(a, st.Object).TryInit(ctx, first, size)
	}
	calls["nextId"] = func(ctx context.Context, a *vactor, st vectors.Step) (any, error) {
		return r.id(a, st.Object).NextID(ctx)
	}
	b := func(a *vactor, object string) *value.Bucket[any] {
		return redisson.NewBucket[any](a.Client, object, interopCodec(r.t, "StringCodec"))
	}
	return vectors.Actions[*redisson.Client, struct{}]{
		NewClient: namedClient(),
		Calls:     calls,
		Queries: map[string]vectors.Query[*redisson.Client, struct{}]{
			"remainTimeToLive": func(ctx context.Context, a *vactor, object string, _ *vactor) (any, error) {
				return b(a, object).RemainTTL(ctx)
			},
			"size": func(ctx context.Context, a *vactor, object string, _ *vactor) (any, error) {
				return b(a, object).Size(ctx)
			},
			"get": func(ctx context.Context, a *vactor, object string, _ *vactor) (any, error) {
				return orNil(b(a, object).Get(ctx))
			},
		},
		ErrorClass:  func(err error) string { return fmt.Sprintf("unmapped %v", err) },
		AllCommands: true,
	}
}

// namedClient makes the replay's clients, their connections named C1 and
// C2 for the command log, their registration off (it writes nothing the
// records do not hold).
func namedClient() func(t testing.TB, srv *redistest.Server, sc vectors.Scenario) (*redisson.Client, string) {
	clients := 0
	return func(t testing.TB, srv *redistest.Server, sc vectors.Scenario) (*redisson.Client, string) {
		clients++
		name := fmt.Sprintf("C%d", clients)
		rdb := srv.NewClient(func(o *redis.Options) { o.ClientName = name })
		t.Cleanup(func() { _ = rdb.Close() })
		c, err := redisson.New(rdb, redisson.WithRegistration(redisson.RegistrationOptions{Disabled: true}))
		require.NoError(t, err)
		t.Cleanup(func() { _ = c.Close() })
		return c, c.ID()
	}
}
