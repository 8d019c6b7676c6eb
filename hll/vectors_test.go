package hll_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/codec"
	"github.com/goredisson/redisson/hll"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/internal/vectors"
)

type actor = vectors.Actor[*redisson.Client, struct{}]

type call = vectors.Call[*redisson.Client, struct{}]

// TestJavaVectors replays hyperloglog.json of Redisson 3.52.0 and 4.7.0
// step by step with Go actors on two clients: after each step the result,
// the messages (none), every command the clients sent and the whole Redis
// state (Redis' HLL bytes, the cached count included) must equal Java's.
func TestJavaVectors(t *testing.T) {
	srv := redistest.StartServer(t)
	for _, file := range []string{"hyperloglog.json", "redisson-4.7.0/hyperloglog.json"} {
		f, err := vectors.Load(file)
		require.NoError(t, err)
		require.Len(t, f.Scenarios, 1)
		for _, sc := range f.Scenarios {
			t.Run(f.RedissonVersion+"/"+sc.Name, func(t *testing.T) {
				vectors.ReplayFresh(t, srv, sc, func(testing.TB) vectors.Actions[*redisson.Client, struct{}] {
					return actions()
				})
			})
		}
	}
}

func strings(st vectors.Step, name string) []string {
	var out []string
	for _, v := range st.Args[name].([]any) {
		out = append(out, v.(string))
	}
	return out
}

func of(a *actor, st vectors.Step) *hll.HyperLogLog[string] {
	return redisson.NewHyperLogLog[string](a.Client, st.Object, codec.String())
}

func actions() vectors.Actions[*redisson.Client, struct{}] {
	clients := 0
	return vectors.Actions[*redisson.Client, struct{}]{
		NewClient: func(t testing.TB, srv *redistest.Server, sc vectors.Scenario) (*redisson.Client, string) {
			clients++
			name := fmt.Sprintf("C%d", clients) // the command log's names
			rdb := srv.NewClient(func(o *redis.Options) { o.ClientName = name })
			t.Cleanup(func() { _ = rdb.Close() })
			c, err := redisson.New(rdb, redisson.WithRegistration(redisson.RegistrationOptions{Disabled: true}))
			require.NoError(t, err)
			t.Cleanup(func() { _ = c.Close() })
			return c, c.ID()
		},
		Calls: map[string]call{
			"add": func(ctx context.Context, a *actor, st vectors.Step) (any, error) {
				return of(a, st).Add(ctx, st.Args["value"].(string))
			},
			"addAll": func(ctx context.Context, a *actor, st vectors.Step) (any, error) {
				return of(a, st).AddAll(ctx, strings(st, "values")...)
			},
			"count": func(ctx context.Context, a *actor, st vectors.Step) (any, error) {
				return of(a, st).Count(ctx)
			},
			"countWith": func(ctx context.Context, a *actor, st vectors.Step) (any, error) {
				return of(a, st).CountWith(ctx, strings(st, "others")...)
			},
			"mergeWith": func(ctx context.Context, a *actor, st vectors.Step) (any, error) {
				return nil, of(a, st).MergeWith(ctx, strings(st, "others")...)
			},
		},
		ErrorClass:  func(err error) string { return fmt.Sprintf("unmapped %v", err) },
		AllCommands: true,
	}
}
