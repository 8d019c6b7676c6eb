package setcache_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/codec"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/internal/vectors"
	"github.com/goredisson/redisson/setcache"
)

// The RSetCache scenarios of collections.json.
var setCacheScenarios = []string{"collections.set_cache", "collections.set_cache_eviction"}

// TestJavaVectors replays the RSetCache scenarios of collections.json of
// Redisson 3.52.0 and 4.7.0 step by step with Go actors on two clients:
// after each step the result, the messages, every Redis command the clients
// sent (set_cache: the scripts' own calls included, only the EVALSHA lines
// left out) and the whole Redis state must equal Java's. The clean-up runs
// as in the records: minCleanUpDelay from the scenario's config.
//
// One decided difference: the clean-up is 4.7's on both versions, so in
// the 3.52.0 replay of set_cache_eviction the removal of "x" also
// publishes it on redisson_set_cache_expired:{sc} (the recorder's
// PSUBSCRIBE * counts as a listener), which 3.52.0's ZREMRANGEBYSCORE does
// not. The state is the 3.52.0 record's; the messages of that step are
// compared with the 4.7.0 record's, where Java published the same bytes.
func TestJavaVectors(t *testing.T) {
	srv := redistest.StartServer(t)
	v47, err := vectors.Load("redisson-4.7.0/collections.json")
	require.NoError(t, err)
	for _, file := range []string{"collections.json", "redisson-4.7.0/collections.json"} {
		f, err := vectors.Load(file)
		require.NoError(t, err)
		seen := 0
		for _, sc := range f.Scenarios {
			if !slices.Contains(setCacheScenarios, sc.Name) {
				continue
			}
			seen++
			if f.RedissonVersion == "3.52.0" && sc.Name == "collections.set_cache_eviction" {
				sc = messagesOf(t, sc, scenario(t, v47, sc.Name))
			}
			t.Run(f.RedissonVersion+"/"+sc.Name, func(t *testing.T) {
				vectors.ReplayFresh(t, srv, sc, func(testing.TB) vectors.Actions[*redisson.Client, struct{}] {
					return actions(sc)
				})
			})
		}
		require.Equal(t, len(setCacheScenarios), seen, "%s: scenarios replayed", file)
	}
}

func scenario(t *testing.T, f *vectors.File, name string) vectors.Scenario {
	for _, sc := range f.Scenarios {
		if sc.Name == name {
			return sc
		}
	}
	t.Fatalf("no scenario %s in %s", name, f.RedissonVersion)
	return vectors.Scenario{}
}

// messagesOf returns sc with each step's expected messages taken from the
// same step of other, checking that the two records differ in nothing
// else but the clean-up's message (3.52.0 publishes none).
func messagesOf(t *testing.T, sc, other vectors.Scenario) vectors.Scenario {
	require.Len(t, other.Steps, len(sc.Steps))
	out := sc
	out.Steps = make([]vectors.Step, len(sc.Steps))
	differ := 0
	for i, st := range sc.Steps {
		raw := make(map[string]any, len(st.Raw))
		for k, v := range st.Raw {
			raw[k] = v
		}
		mine, _ := json.Marshal(st.Raw["messages"])
		theirs, _ := json.Marshal(other.Steps[i].Raw["messages"])
		if string(mine) != string(theirs) {
			differ++
			require.Equal(t, "[]", string(mine), "step %d: 3.52.0 publishes nothing", st.Step)
			require.Equal(t, `[["redisson_set_cache_expired:{sc}",{"hex":"010000000000000078"}]]`, string(theirs),
				"step %d: 4.7.0 publishes the expired member, its length first", st.Step)
		}
		raw["messages"] = other.Steps[i].Raw["messages"]
		st.Raw = raw
		out.Steps[i] = st
	}
	require.Equal(t, 1, differ, "the records differ in the clean-up's message only")
	return out
}

type actor = vectors.Actor[*redisson.Client, struct{}]

func cacheOf(a *actor, object string) *setcache.SetCache[string] {
	return redisson.NewSetCache[string](a.Client, object, codec.String())
}

func actions(sc vectors.Scenario) vectors.Actions[*redisson.Client, struct{}] {
	clients := 0
	delay, _ := sc.Config["minCleanUpDelay_s"].(float64)
	value := func(st vectors.Step) string { s, _ := st.Args["value"].(string); return s }
	return vectors.Actions[*redisson.Client, struct{}]{
		NewClient: func(t testing.TB, srv *redistest.Server, _ vectors.Scenario) (*redisson.Client, string) {
			clients++
			name := fmt.Sprintf("C%d", clients) // the command log's names
			rdb := srv.NewClient(func(o *redis.Options) { o.ClientName = name })
			t.Cleanup(func() { _ = rdb.Close() })
			c, err := redisson.New(rdb, redisson.WithCleanUp(redisson.CleanUpOptions{MinDelay: time.Duration(delay) * time.Second}))
			require.NoError(t, err)
			t.Cleanup(func() { _ = c.Close() })
			return c, c.ID()
		},
		Calls: map[string]vectors.Call[*redisson.Client, struct{}]{
			"add": func(ctx context.Context, a *actor, st vectors.Step) (any, error) {
				ttl, _ := st.Arg("ttl_ms")
				return cacheOf(a, st.Object).AddTTL(ctx, value(st), ttl)
			},
			"remove": func(ctx context.Context, a *actor, st vectors.Step) (any, error) {
				return cacheOf(a, st.Object).Remove(ctx, value(st))
			},
		},
		Queries: map[string]vectors.Query[*redisson.Client, struct{}]{
			"size": func(ctx context.Context, a *actor, object string, _ *actor) (any, error) {
				return cacheOf(a, object).Size(ctx)
			},
			"readAll": func(ctx context.Context, a *actor, object string, _ *actor) (any, error) {
				all, err := cacheOf(a, object).ReadAll(ctx)
				slices.Sort(all) // Java's record sorts it
				return all, err
			},
		},
		ValueQueries: map[string]vectors.ValueQuery[*redisson.Client, struct{}]{
			"contains": func(ctx context.Context, a *actor, object, arg string) (any, error) {
				return cacheOf(a, object).Contains(ctx, strings.Trim(arg, `"`))
			},
		},
		ErrorClass:  func(err error) string { return fmt.Sprintf("unmapped %v", err) },
		AllCommands: true,
	}
}
