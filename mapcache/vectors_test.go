package mapcache_test

import (
	"context"
	"fmt"
	"math"
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
	"github.com/goredisson/redisson/mapcache"
)

// TestJavaVectors replays the four scenarios of mapcache.json of Redisson
// 3.52.0 and 4.7.0 step by step with Go actors on two clients: after each
// step the result, the messages, the command log (every command of the
// scenarios that name their clients, the scripts' own calls included; the
// pub/sub commands of mapcache.events) and the whole Redis state must equal
// Java's. The deviations from 3.52.0 come from this package sending 4.7.0's
// scripts (see the package doc).
func TestJavaVectors(t *testing.T) {
	srv := redistest.StartServer(t)
	for _, file := range []string{"mapcache.json", "redisson-4.7.0/mapcache.json"} {
		f, err := vectors.Load(file)
		require.NoError(t, err)
		v47 := strings.HasPrefix(file, "redisson-4.7.0/")
		require.Len(t, f.Scenarios, 4, file)
		for _, sc := range f.Scenarios {
			t.Run(f.RedissonVersion+"/"+sc.Name, func(t *testing.T) {
				vectors.ReplayFresh(t, srv, sc, func(at testing.TB) vectors.Actions[*redisson.Client, struct{}] {
					r := &mcReplay{t: at, sc: sc, v47: v47, handles: map[string]*mapcache.MapCache[string, string]{},
						inbox: map[string][]any{}}
					return r.actions()
				})
			})
		}
	}
}

type actor = vectors.Actor[*redisson.Client, struct{}]

type mcReplay struct {
	t       testing.TB
	sc      vectors.Scenario
	v47     bool
	clients int
	handles map[string]*mapcache.MapCache[string, string] // actor/object: each Java actor has its own instance

	mu    sync.Mutex
	inbox map[string][]any // actor → the events its listeners received, as the records write them
}

// of returns the actor's instance of the map cache, made at its first use
// as Java's getMapCache is (which starts the client's clean-up task).
func (r *mcReplay) of(a *actor, object string) *mapcache.MapCache[string, string] {
	key := a.Name + "/" + object
	if m := r.handles[key]; m != nil {
		return m
	}
	m := redisson.NewMapCache[string, string](a.Client, object, codec.String())
	r.handles[key] = m
	return m
}

func str(st vectors.Step, name string) string { s, _ := st.Args[name].(string); return s }

func entryOpts(st vectors.Step) []mapcache.EntryOption {
	var opts []mapcache.EntryOption
	if d, ok := st.Arg("ttl_ms"); ok {
		opts = append(opts, mapcache.WithTTL(d))
	}
	if d, ok := st.Arg("max_idle_ms"); ok {
		opts = append(opts, mapcache.WithMaxIdle(d))
	}
	return opts
}

func orNil(v string, ok bool, err error) (any, error) {
	if err != nil || !ok {
		return nil, err
	}
	return v, nil
}

var listenerTypes = map[string]mapcache.EventType{
	"EntryCreatedListener": mapcache.EntryCreated, "EntryUpdatedListener": mapcache.EntryUpdated,
	"EntryRemovedListener": mapcache.EntryRemoved, "EntryExpiredListener": mapcache.EntryExpired,
}

// listen adds a listener of the actor and collects its events in the
// actor's inbox, as the recorder's Java listener does.
func (r *mcReplay) listen(ctx context.Context, a *actor, st vectors.Step) (any, error) {
	typ, ok := listenerTypes[str(st, "listener")]
	if !ok {
		return nil, fmt.Errorf("unknown listener %q", str(st, "listener"))
	}
	l, err := r.of(a, st.Object).AddListener(ctx, typ)
	if err != nil {
		return nil, err
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for e := range l.Events() {
			ev := map[string]any{"type": e.Type.String(), "key": e.Key, "value": nil, "oldValue": nil}
			switch {
			case e.Err != nil:
				ev["error"] = e.Err.Error()
			case e.Type == mapcache.EntryRemoved:
				ev["oldValue"] = e.OldValue
			case e.Type == mapcache.EntryUpdated:
				ev["value"], ev["oldValue"] = e.Value, e.OldValue
			default:
				ev["value"] = e.Value
			}
			r.mu.Lock()
			r.inbox[a.Name] = append(r.inbox[a.Name], ev)
			r.mu.Unlock()
		}
	}()
	r.t.Cleanup(func() { _ = l.Close(); <-done })
	return nil, nil
}

func (r *mcReplay) calls() map[string]vectors.Call[*redisson.Client, struct{}] {
	type fn = vectors.Call[*redisson.Client, struct{}]
	return map[string]fn{
		"put": func(ctx context.Context, a *actor, st vectors.Step) (any, error) {
			return orNil(r.of(a, st.Object).Put(ctx, str(st, "key"), str(st, "value"), entryOpts(st)...))
		},
		"fastPut": func(ctx context.Context, a *actor, st vectors.Step) (any, error) {
			return r.of(a, st.Object).FastPut(ctx, str(st, "key"), str(st, "value"), entryOpts(st)...)
		},
		"putIfAbsent": func(ctx context.Context, a *actor, st vectors.Step) (any, error) {
			return orNil(r.of(a, st.Object).PutIfAbsent(ctx, str(st, "key"), str(st, "value"), entryOpts(st)...))
		},
		"fastPutIfExists": func(ctx context.Context, a *actor, st vectors.Step) (any, error) {
			return r.of(a, st.Object).FastPutIfExists(ctx, str(st, "key"), str(st, "value"))
		},
		"get": func(ctx context.Context, a *actor, st vectors.Step) (any, error) {
			return orNil(r.of(a, st.Object).Get(ctx, str(st, "key")))
		},
		"remove": func(ctx context.Context, a *actor, st vectors.Step) (any, error) {
			return orNil(r.of(a, st.Object).Remove(ctx, str(st, "key")))
		},
		"fastRemove": func(ctx context.Context, a *actor, st vectors.Step) (any, error) {
			var keys []string
			for _, k := range st.Args["keys"].([]any) {
				keys = append(keys, k.(string))
			}
			return r.of(a, st.Object).FastRemove(ctx, keys...)
		},
		"setMaxSize": func(ctx context.Context, a *actor, st vectors.Step) (any, error) {
			n, _ := st.Int("max_size")
			return nil, r.of(a, st.Object).SetMaxSize(ctx, int(n), mapcache.LRU)
		},
		"addListener": r.listen,
	}
}

// bucket is a remainTimeToLive result as the records write it (§4.6).
func (r *mcReplay) bucket(d time.Duration) any {
	if d < 0 {
		return int64(d)
	}
	g := r.sc.TTLGridMS
	k := int64(math.Ceil(float64(d.Milliseconds()) / float64(g)))
	return []any{g * (k - 1), g * k}
}

func (r *mcReplay) queries() (map[string]vectors.Query[*redisson.Client, struct{}], map[string]vectors.ValueQuery[*redisson.Client, struct{}]) {
	type q = vectors.Query[*redisson.Client, struct{}]
	type vq = vectors.ValueQuery[*redisson.Client, struct{}]
	unquote := func(s string) string { return strings.Trim(s, `"`) }
	return map[string]q{
			"size": func(ctx context.Context, a *actor, object string, _ *actor) (any, error) {
				return r.of(a, object).Size(ctx)
			},
			"readAllMap": func(ctx context.Context, a *actor, object string, _ *actor) (any, error) {
				return r.of(a, object).ReadAll(ctx)
			},
			"listener.received": func(ctx context.Context, a *actor, object string, _ *actor) (any, error) {
				r.mu.Lock()
				defer r.mu.Unlock()
				got := append([]any{}, r.inbox[a.Name]...)
				r.inbox[a.Name] = nil
				return got, nil
			},
		}, map[string]vq{
			"remainTimeToLive": func(ctx context.Context, a *actor, object, arg string) (any, error) {
				d, err := r.of(a, object).EntryRemainTTL(ctx, unquote(arg))
				return r.bucket(d), err
			},
			"containsKey": func(ctx context.Context, a *actor, object, arg string) (any, error) {
				return r.of(a, object).ContainsKey(ctx, unquote(arg))
			},
			"get": func(ctx context.Context, a *actor, object, arg string) (any, error) {
				return orNil(r.of(a, object).Get(ctx, unquote(arg)))
			},
		}
}

func (r *mcReplay) actions() vectors.Actions[*redisson.Client, struct{}] {
	minDelay := time.Duration(r.sc.Config["minCleanUpDelay_s"].(float64)) * time.Second
	qs, vqs := r.queries()
	acts := vectors.Actions[*redisson.Client, struct{}]{
		NewClient: func(t testing.TB, srv *redistest.Server, sc vectors.Scenario) (*redisson.Client, string) {
			r.clients++
			name := fmt.Sprintf("C%d", r.clients) // the command log's names
			rdb := srv.NewClient(func(o *redis.Options) { o.ClientName = name })
			t.Cleanup(func() { _ = rdb.Close() })
			c, err := redisson.New(rdb, redisson.WithCleanUp(redisson.CleanUpOptions{MinDelay: minDelay}))
			require.NoError(t, err)
			t.Cleanup(func() { _ = c.Close() })
			return c, c.ID()
		},
		Calls:        r.calls(),
		Queries:      qs,
		ValueQueries: vqs,
		ErrorClass:   func(err error) string { return fmt.Sprintf("unmapped %v", err) },
		// The events scenario records the pub/sub commands only (§8.1).
		AllCommands: r.sc.Name != "mapcache.events",
	}
	if !r.v47 {
		// 4.7.0's put and fastPut also DEL or GET the entry's lease key,
		// which a 3.52 client never creates: the scripts' other calls
		// are 3.52.0's.
		acts.IgnoreCommand = func(cmd []any) bool {
			if len(cmd) < 3 || cmd[0] != "lua" {
				return false
			}
			s, _ := cmd[2].(string)
			return strings.HasPrefix(s, "redisson__map__lease:")
		}
		acts.Deviations = deviations352
	}
	return acts
}

// updatedWithOld is fastPutIfExists("a", "3")'s update event as 4.7.0
// publishes it: key, new value, old value "2".
var updatedWithOld = []any{"redisson_map_cache_updated:{mc}", map[string]any{"hex": "010000000000000061010000000000000033010000000000000032"}}

// deviations352 are the steps where 3.52.0's record differs from what 4.7.0's
// fastPutIfExists script does.
var deviations352 = []vectors.Deviation{
	{
		Scenario: "mapcache.events", Step: 7,
		Why: "fastPutIfExists publishes the old value with the update, as 4.7.0 does (package doc, docs/caches.md)",
		Fields: map[string]any{
			"messages": []any{updatedWithOld},
			"commands": []any{append([]any{"lua", "PUBLISH"}, updatedWithOld...)},
		},
	},
	{
		Scenario: "mapcache.events", Step: 10,
		Why: "3.52.0's listener lost step 7's update (it could not decode it); this listener receives it",
		Fields: map[string]any{"result": map[string]any{"listener.received": []any{
			map[string]any{"type": "CREATED", "key": "a", "value": "1", "oldValue": nil},
			map[string]any{"type": "UPDATED", "key": "a", "value": "2", "oldValue": "1"},
			map[string]any{"type": "UPDATED", "key": "a", "value": "3", "oldValue": "2"},
			map[string]any{"type": "CREATED", "key": "b", "value": "x", "oldValue": nil},
			map[string]any{"type": "REMOVED", "key": "a", "value": nil, "oldValue": "3"},
		}}},
	},
}
