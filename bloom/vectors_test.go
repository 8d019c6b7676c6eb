package bloom_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/bloom"
	"github.com/goredisson/redisson/codec"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/internal/vectors"
)

type actor = vectors.Actor[*redisson.Client, struct{}]

type call = vectors.Call[*redisson.Client, struct{}]

type query = vectors.Query[*redisson.Client, struct{}]

// TestJavaVectors replays bloomfilter.json of Redisson 3.52.0 and 4.7.0
// step by step with Go actors on two clients, each actor with its own
// handle as each Java thread had its own instance: after each step the
// result, every command the clients sent (the indexes included) and the
// whole Redis state (the bits, the config) must equal Java's.
func TestJavaVectors(t *testing.T) {
	srv := redistest.StartServer(t)
	for _, file := range []string{"bloomfilter.json", "redisson-4.7.0/bloomfilter.json"} {
		f, err := vectors.Load(file)
		require.NoError(t, err)
		require.Len(t, f.Scenarios, 1)
		for _, sc := range f.Scenarios {
			t.Run(f.RedissonVersion+"/"+sc.Name, func(t *testing.T) {
				vectors.ReplayFresh(t, srv, sc, func(testing.TB) vectors.Actions[*redisson.Client, struct{}] {
					return (&replay{filters: map[string]*bloom.BloomFilter[string]{}}).actions()
				})
			})
		}
	}
}

type replay struct {
	filters map[string]*bloom.BloomFilter[string] // by actor and name
}

func (r *replay) of(a *actor, object string) *bloom.BloomFilter[string] {
	k := a.Name + "/" + object
	if r.filters[k] == nil {
		r.filters[k] = redisson.NewBloomFilter[string](a.Client, object, codec.String())
	}
	return r.filters[k]
}

func values(st vectors.Step) []string {
	var out []string
	for _, v := range st.Args["values"].([]any) {
		out = append(out, v.(string))
	}
	return out
}

func (r *replay) calls() map[string]call {
	return map[string]call{
		"tryInit": func(ctx context.Context, a *actor, st vectors.Step) (any, error) {
			n, _ := st.Int("expected_insertions")
			p, _ := st.Args["false_probability"].(float64)
			return r.of(a, st.Object).TryInit(ctx, n, p)
		},
		"add": func(ctx context.Context, a *actor, st vectors.Step) (any, error) {
			if _, many := st.Args["values"]; many {
				return r.of(a, st.Object).AddAll(ctx, values(st)...)
			}
			return r.of(a, st.Object).Add(ctx, st.Args["value"].(string))
		},
		"contains": func(ctx context.Context, a *actor, st vectors.Step) (any, error) {
			return r.of(a, st.Object).ContainsAll(ctx, values(st)...)
		},
	}
}

func (r *replay) queries() map[string]query {
	return map[string]query{
		"count": func(ctx context.Context, a *actor, object string, _ *actor) (any, error) {
			return r.of(a, object).Count(ctx)
		},
		"getSize": func(ctx context.Context, a *actor, object string, _ *actor) (any, error) {
			return r.of(a, object).Size(ctx)
		},
		"getHashIterations": func(ctx context.Context, a *actor, object string, _ *actor) (any, error) {
			return r.of(a, object).HashIterations(ctx)
		},
		"getExpectedInsertions": func(ctx context.Context, a *actor, object string, _ *actor) (any, error) {
			return r.of(a, object).ExpectedInsertions(ctx)
		},
		"getFalseProbability": func(ctx context.Context, a *actor, object string, _ *actor) (any, error) {
			return r.of(a, object).FalseProbability(ctx)
		},
	}
}

func (r *replay) actions() vectors.Actions[*redisson.Client, struct{}] {
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
		Calls:   r.calls(),
		Queries: r.queries(),
		ValueQueries: map[string]vectors.ValueQuery[*redisson.Client, struct{}]{
			"contains": func(ctx context.Context, a *actor, object, arg string) (any, error) {
				return r.of(a, object).Contains(ctx, strings.Trim(arg, `"`))
			},
		},
		// Redisson wraps both refusals in a RedisException: the config
		// check of its client, and the assert of its script.
		ErrorClass: func(err error) string {
			if errors.Is(err, bloom.ErrNotInitialized) || errors.Is(err, bloom.ErrConfigChanged) {
				return "org.redisson.client.RedisException"
			}
			return fmt.Sprintf("unmapped %v", err)
		},
		AllCommands: true,
	}
}
