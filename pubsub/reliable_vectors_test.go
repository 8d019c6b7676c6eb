package pubsub_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/codec"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/internal/vectors"
	"github.com/goredisson/redisson/pubsub"
)

// reliableReplay is the state of one RReliableTopic scenario's replay: each
// actor's subscriptions (Java: one RReliableTopic instance per actor, one
// consumer group) and inboxes.
type reliableReplay struct {
	t        *testing.T
	sc       vectors.Scenario
	mu       sync.Mutex
	subs     map[string][]*pubsub.ReliableSubscription[string]
	box      map[string][]received
	watchdog time.Duration
}

func (r *reliableReplay) closeAll(actor string) error {
	r.mu.Lock()
	subs := r.subs[actor]
	r.subs[actor] = nil
	r.mu.Unlock()
	for _, s := range subs {
		if err := s.Close(); err != nil {
			return err
		}
	}
	return nil
}

// closeEvery closes every actor's subscriptions.
func (r *reliableReplay) closeEvery() {
	r.mu.Lock()
	actors := make([]string, 0, len(r.subs))
	for actor := range r.subs {
		actors = append(actors, actor)
	}
	r.mu.Unlock()
	for _, actor := range actors {
		_ = r.closeAll(actor)
	}
}

func (r *reliableReplay) actions() vectors.Actions[*redisson.Client, struct{}] {
	clients := 0
	topic := func(a *topicActor, object string) *pubsub.ReliableTopic[string] {
		return redisson.NewReliableTopic[string](a.Client, object, codec.String())
	}
	return vectors.Actions[*redisson.Client, struct{}]{
		StreamIDs:   true,
		AllCommands: true,
		NewClient: func(t testing.TB, srv *redistest.Server, sc vectors.Scenario) (*redisson.Client, string) {
			clients++
			name := fmt.Sprintf("C%d", clients)
			rdb := srv.NewClient(func(o *redis.Options) { o.ClientName = name })
			t.Cleanup(func() { _ = rdb.Close() })
			c, err := redisson.New(rdb)
			require.NoError(t, err)
			t.Cleanup(func() { _ = c.Close() })
			t.Cleanup(r.closeEvery) // first: the subscriptions end before their client
			return c, c.ID()
		},
		Calls: map[string]vectors.Call[*redisson.Client, struct{}]{
			"publish": func(ctx context.Context, a *topicActor, st vectors.Step) (any, error) {
				return topic(a, st.Object).Publish(ctx, st.Args["message"].(string))
			},
			"addListener": func(ctx context.Context, a *topicActor, st vectors.Step) (any, error) {
				require.Equal(r.t, "StringCodec", st.Args["codec"])
				s, err := topic(a, st.Object).Subscribe(ctx, pubsub.WithWatchdogTimeout(r.watchdog))
				if err != nil {
					return nil, err
				}
				r.mu.Lock()
				r.subs[a.Name] = append(r.subs[a.Name], s)
				r.mu.Unlock()
				go func() {
					for m := range s.Messages() {
						if m.Err != nil {
							r.t.Errorf("%s: %v", a.Name, m.Err)
							continue
						}
						r.mu.Lock()
						r.box[a.Name] = append(r.box[a.Name], received{Channel: m.Channel, Class: javaClass(m.Value), Value: m.Value})
						r.mu.Unlock()
					}
				}()
				return nil, nil
			},
			"removeAllListeners": func(ctx context.Context, a *topicActor, st vectors.Step) (any, error) {
				return nil, r.closeAll(a.Name)
			},
		},
		Queries: map[string]vectors.Query[*redisson.Client, struct{}]{
			"listener.received": func(ctx context.Context, a *topicActor, object string, _ *topicActor) (any, error) {
				r.mu.Lock()
				defer r.mu.Unlock()
				got := r.box[a.Name]
				r.box[a.Name] = nil
				if got == nil {
					got = []received{}
				}
				return got, nil
			},
			"countSubscribers": func(ctx context.Context, a *topicActor, object string, _ *topicActor) (any, error) {
				return topic(a, object).CountSubscribers(ctx)
			},
			"countListeners": func(ctx context.Context, a *topicActor, object string, _ *topicActor) (any, error) {
				return topic(a, object).CountListeners(), nil
			},
			"size": func(ctx context.Context, a *topicActor, object string, _ *topicActor) (any, error) {
				return topic(a, object).Size(ctx)
			},
		},
		ErrorClass: func(err error) string { return fmt.Sprintf("unmapped Go error: %v", err) },
	}
}

// TestJavaReliableVectors replays the RReliableTopic scenarios of
// topics.json, recorded with Java Redisson 3.52.0 and 4.7.0, with Go
// clients: outcomes, what the listeners received, the whole Redis state
// (the stream, its groups and consumers, {rt}:timeout) and every command
// of the clients (the scripts' own Redis calls included, not their SHA-1)
// after every step.
func TestJavaReliableVectors(t *testing.T) {
	srv := redistest.StartServer(t)
	for _, file := range []string{"topics.json", "redisson-4.7.0/topics.json"} {
		f, err := vectors.Load(file)
		require.NoError(t, err)
		replayed := 0
		for _, sc := range f.Scenarios {
			if !strings.HasPrefix(sc.Name, "reliabletopic.") {
				continue
			}
			replayed++
			t.Run(f.RedissonVersion+"/"+sc.Name, func(t *testing.T) {
				watchdog := pubsub.DefaultReliableWatchdogTimeout
				if ms, ok := sc.Config["reliableTopicWatchdogTimeout_ms"].(float64); ok {
					watchdog = time.Duration(ms) * time.Millisecond
				}
				vectors.ReplayFresh(t, srv, sc, func(testing.TB) vectors.Actions[*redisson.Client, struct{}] {
					r := &reliableReplay{t: t, sc: sc, watchdog: watchdog,
						subs: map[string][]*pubsub.ReliableSubscription[string]{}, box: map[string][]received{}}
					return r.actions()
				})
			})
		}
		require.Equal(t, 2, replayed, file)
	}
}
