package bits_test

import (
	"context"
	"encoding/hex"
	"fmt"
	"strconv"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/internal/vectors"
)

type actor = vectors.Actor[*redisson.Client, struct{}]

type call = vectors.Call[*redisson.Client, struct{}]

type query = vectors.Query[*redisson.Client, struct{}]

// TestJavaVectors replays bitset.json of Redisson 3.52.0 and 4.7.0 step by
// step with Go actors on two clients: after each step the result, the
// messages (none), every command the clients sent (the length script's own
// calls included; not the EVALSHA line: ours is EVALSHA where Java sends
// EVALSHA_RO, and its SHA-1 is our text's) and the whole Redis state must
// equal Java's.
func TestJavaVectors(t *testing.T) {
	srv := redistest.StartServer(t)
	for _, file := range []string{"bitset.json", "redisson-4.7.0/bitset.json"} {
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

func arg(st vectors.Step, name string) int64 { n, _ := st.Int(name); return n }

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
			"set": func(ctx context.Context, a *actor, st vectors.Step) (any, error) {
				bs := a.Client.BitSet(st.Object)
				if _, r := st.Args["from"]; r {
					return nil, bs.SetRange(ctx, arg(st, "from"), arg(st, "to"), true)
				}
				v, given := st.Args["value"].(bool)
				return bs.Set(ctx, arg(st, "index"), v || !given)
			},
			"clear": func(ctx context.Context, a *actor, st vectors.Step) (any, error) {
				bs := a.Client.BitSet(st.Object)
				if _, one := st.Args["index"]; one {
					return bs.Set(ctx, arg(st, "index"), false)
				}
				return nil, bs.Clear(ctx)
			},
			"setByte": func(ctx context.Context, a *actor, st vectors.Step) (any, error) {
				return a.Client.BitSet(st.Object).SetByte(ctx, arg(st, "offset"), int8(arg(st, "value")))
			},
			"getByte": func(ctx context.Context, a *actor, st vectors.Step) (any, error) {
				return a.Client.BitSet(st.Object).GetByte(ctx, arg(st, "offset"))
			},
			"not": func(ctx context.Context, a *actor, st vectors.Step) (any, error) {
				return a.Client.BitSet(st.Object).Not(ctx)
			},
		},
		Queries: map[string]query{
			"cardinality": func(ctx context.Context, a *actor, object string, _ *actor) (any, error) {
				return a.Client.BitSet(object).Cardinality(ctx)
			},
			"length": func(ctx context.Context, a *actor, object string, _ *actor) (any, error) {
				return a.Client.BitSet(object).Length(ctx)
			},
			"size": func(ctx context.Context, a *actor, object string, _ *actor) (any, error) {
				return a.Client.BitSet(object).Size(ctx)
			},
			"toByteArray": func(ctx context.Context, a *actor, object string, _ *actor) (any, error) {
				b, err := a.Client.BitSet(object).Bytes(ctx)
				return map[string]any{"hex": hex.EncodeToString(b)}, err
			},
		},
		ValueQueries: map[string]vectors.ValueQuery[*redisson.Client, struct{}]{
			"get": func(ctx context.Context, a *actor, object, arg string) (any, error) {
				i, err := strconv.ParseInt(arg, 10, 64)
				if err != nil {
					return nil, err
				}
				return a.Client.BitSet(object).Get(ctx, i)
			},
		},
		ErrorClass:  func(err error) string { return fmt.Sprintf("unmapped %v", err) },
		AllCommands: true,
	}
}
