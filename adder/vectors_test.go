package adder_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/adder"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/internal/vectors"
)

// instance is one adder as the records' ops call it.
type instance struct {
	add   func(delta float64)
	sum   func(ctx context.Context) (any, error)
	reset func(ctx context.Context) error
	close func() error
}

func longInstance(a *adder.LongAdder) instance {
	return instance{
		add:   func(d float64) { a.Add(int64(d)) },
		sum:   func(ctx context.Context) (any, error) { return a.Sum(ctx) },
		reset: a.Reset, close: a.Close,
	}
}

func doubleInstance(a *adder.DoubleAdder) instance {
	return instance{
		add:   a.Add,
		sum:   func(ctx context.Context) (any, error) { return a.Sum(ctx) },
		reset: a.Reset, close: a.Close,
	}
}

type actor = vectors.Actor[*redisson.Client, struct{}]

// adderActions is what the adders' records mean: getOp ("getLongAdder")
// makes the actor's instance with make, and the other ops call it. The
// clients name their connections C1 and C2 for the command log, which the
// replay compares whole, scripts' calls included, in quiet mode (the
// messages from MONITOR; no PSUBSCRIBE *, which sum would count as a
// receiver that never answers) with the recorder's semaphore filter.
func adderActions(getOp string, make func(c *redisson.Client, name string) instance) func(testing.TB) vectors.Actions[*redisson.Client, struct{}] {
	return func(t testing.TB) vectors.Actions[*redisson.Client, struct{}] {
		clients := 0
		var raw *redis.Client              // the replay's server, for the destroy's wait
		instances := map[string]instance{} // by actor
		t.Cleanup(func() {
			for _, in := range instances {
				_ = in.close()
			}
		})
		of := func(a *actor) (instance, error) {
			in, ok := instances[a.Name]
			if !ok {
				return instance{}, fmt.Errorf("%s has no adder", a.Name)
			}
			return in, nil
		}
		do := func(f func(ctx context.Context, in instance) (any, error)) vectors.Call[*redisson.Client, struct{}] {
			return func(ctx context.Context, a *actor, _ vectors.Step) (any, error) {
				in, err := of(a)
				if err != nil {
					return nil, err
				}
				return f(ctx, in)
			}
		}
		return vectors.Actions[*redisson.Client, struct{}]{
			NewClient: func(t testing.TB, srv *redistest.Server, _ vectors.Scenario) (*redisson.Client, string) {
				clients++
				if raw == nil {
					raw = redistest.Client(t, srv)
				}
				name := fmt.Sprintf("C%d", clients) // the command log's names
				rdb := srv.NewClient(func(o *redis.Options) { o.ClientName = name })
				t.Cleanup(func() { _ = rdb.Close() })
				c, err := redisson.New(rdb)
				require.NoError(t, err)
				t.Cleanup(func() { _ = c.Close() })
				return c, c.ID()
			},
			Calls: map[string]vectors.Call[*redisson.Client, struct{}]{
				getOp: func(_ context.Context, a *actor, st vectors.Step) (any, error) {
					instances[a.Name] = make(a.Client, st.Object)
					return nil, nil
				},
				"add": func(ctx context.Context, a *actor, st vectors.Step) (any, error) {
					in, err := of(a)
					if err == nil {
						in.add(st.Args["delta"].(float64))
					}
					return nil, err
				},
				"increment": do(func(_ context.Context, in instance) (any, error) { in.add(1); return nil, nil }),
				"decrement": do(func(_ context.Context, in instance) (any, error) { in.add(-1); return nil, nil }),
				"sum":       do(func(ctx context.Context, in instance) (any, error) { return in.sum(ctx) }),
				"reset":     do(func(ctx context.Context, in instance) (any, error) { return nil, in.reset(ctx) }),
				"destroy": func(ctx context.Context, a *actor, st vectors.Step) (any, error) {
					in, err := of(a)
					if err != nil {
						return nil, err
					}
					delete(instances, a.Name)
					if err := in.close(); err != nil {
						return nil, err
					}
					// Java's destroy returns once Redis confirmed the
					// unsubscribe; Close does not wait for it. Each of
					// the other instances' clients stays subscribed.
					channel := "{" + st.Object + "}:adder-topic"
					redistest.Eventually(t, 5*time.Second, "unsubscribed", func() bool {
						return raw.PubSubNumSub(ctx, channel).Val()[channel] == int64(len(instances))
					})
					return nil, nil
				},
			},
			ErrorClass:      func(err error) string { return fmt.Sprintf("unmapped Go error: %v", err) },
			StreamIDs:       true, // the request ids are <Sn>
			AllCommands:     true,
			Quiet:           true,
			SemaphoreFilter: true,
		}
	}
}

// TestAdderJavaVectors replays the adders' records of Redisson 3.52.0 and
// 4.7.0: two clients with one instance each count locally, sum and reset
// each other over {N}:adder-topic (the request id, the counter and the
// semaphore keys, every message and every command the record keeps, the
// scripts' own calls included), and a destroyed instance stops answering.
// In these records no client has two instances of a name, so Go's one
// INCRBY per client (adder.group) sends what Java's one per instance does.
func TestAdderJavaVectors(t *testing.T) {
	srv := redistest.StartServer(t)
	long := adderActions("getLongAdder", func(c *redisson.Client, name string) instance { return longInstance(c.LongAdder(name)) })
	double := adderActions("getDoubleAdder", func(c *redisson.Client, name string) instance { return doubleInstance(c.DoubleAdder(name)) })
	for _, tc := range []struct {
		file string
		acts func(testing.TB) vectors.Actions[*redisson.Client, struct{}]
	}{
		{"longadder.json", long}, {"redisson-4.7.0/longadder.json", long},
		{"doubleadder.json", double}, {"redisson-4.7.0/doubleadder.json", double},
	} {
		f, err := vectors.Load(tc.file)
		require.NoError(t, err)
		require.Len(t, f.Scenarios, 1)
		for _, sc := range f.Scenarios {
			t.Run(f.RedissonVersion+"/"+sc.Name, func(t *testing.T) {
				vectors.ReplayFresh(t, srv, sc, tc.acts)
			})
		}
	}
}
