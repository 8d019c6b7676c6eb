package localcache_test

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/internal/vectors"
	"github.com/goredisson/redisson/localcache"
)

// quietMarker ends a step's share of MONITOR's lines.
const quietMarker = "__lcm_quiet_step_end__"

// quietReplay replays a quiet scenario of localcachedmap.json
// (testdata/README.md §10, lcm.clear_local_cache): nothing subscribes
// besides the instances, so that PUBLISH counts only them and a clear's
// wait ends; the messages are the PUBLISH commands MONITOR saw (by a
// client or inside a script), in execution order. Each step's result,
// messages, near cache and whole Redis state are compared with the
// record; the record has no command log.
type quietReplay struct {
	t    *testing.T
	ctx  context.Context
	raw  *redis.Client
	mon  *redistest.Monitor
	n    *vectors.Normalizer
	cl   map[string]*redisson.Client // by record client name
	maps map[string]*localcache.LocalCachedMap[string, any]
	r    *lcmReplay // its codecs
}

func replayQuiet(t *testing.T, srv *redistest.Server, sc vectors.Scenario, v47 bool) {
	ctx := t.Context()
	q := &quietReplay{t: t, ctx: ctx, raw: redistest.Client(t, srv), n: vectors.NewNormalizer(sc.TTLGridMS),
		cl: map[string]*redisson.Client{}, maps: map[string]*localcache.LocalCachedMap[string, any]{}, r: &lcmReplay{t: t, v47: v47}}
	require.NoError(t, q.raw.FlushAll(ctx).Err())
	q.n.LocalCachedMap()
	for _, name := range []string{"C1", "C2"} {
		c, err := redisson.New(redistest.Client(t, srv, func(o *redis.Options) { o.ClientName = name }))
		require.NoError(t, err)
		t.Cleanup(func() { _ = c.Close() })
		q.cl[name] = c
	}
	t.Cleanup(func() {
		for _, m := range q.maps {
			_ = m.Close()
		}
	})
	mon, err := redistest.StartMonitor(srv.Addr())
	require.NoError(t, err)
	t.Cleanup(func() { _ = mon.Close() })
	q.mon = mon
	for _, st := range sc.Steps {
		q.step(st)
	}
}

// step runs st and compares what the record holds of it.
func (q *quietReplay) step(st vectors.Step) {
	t := q.t
	got := map[string]any{"ok": true}
	key := st.Actor + "/" + st.Object
	switch st.Kind {
	case "call":
		res, err := q.call(key, st)
		got["ok"] = err == nil
		if err == nil && res != nil {
			got["result"] = res
		}
	case "query":
		got["result"] = q.cachedMap(key, st)
	default:
		t.Fatalf("step %d: kind %q in a quiet scenario", st.Step, st.Kind)
	}
	if ms, ok := st.Raw["settle_ms"].(float64); ok {
		time.Sleep(time.Duration(ms) * time.Millisecond) // recorded: the receivers answer asynchronously
	}
	got["messages"] = q.messages(st.Step)
	state, err := q.n.Snapshot(q.ctx, q.raw)
	require.NoError(t, err)
	got["state"] = state
	for _, field := range []string{"ok", "result", "messages", "state"} {
		w, inWant := st.Raw[field]
		g, inGot := got[field]
		if field == "result" && !inGot && inWant && w == nil {
			continue // a Java null
		}
		if !reflect.DeepEqual(vectors.JSON(w), vectors.JSON(g)) {
			t.Fatalf("step %d (%s %s): %s\nwant %v\n got %v", st.Step, st.Actor, st.Java, field, vectors.JSON(w), vectors.JSON(g))
		}
	}
}

// cachedMap reads the near cache of the instance at key as the record's
// query does, once it matches the record or 10 s passed: a receiver
// applies a message when it arrives, after the sender's call returned.
func (q *quietReplay) cachedMap(key string, st vectors.Step) map[string]any {
	m := q.maps[key]
	require.NotNil(q.t, m, "step %d: no map", st.Step)
	want := vectors.JSON(st.Raw["result"])
	deadline := time.Now().Add(10 * time.Second)
	for {
		got := map[string]any{"getCachedMap": m.CachedMap()}
		if reflect.DeepEqual(want, vectors.JSON(got)) || time.Now().After(deadline) {
			return got
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func (q *quietReplay) call(key string, st vectors.Step) (any, error) {
	ctx := q.ctx
	if st.Op == "getLocalCachedMap" {
		c := q.cl[st.Client]
		m := redisson.NewLocalCachedMap[string, any](c, st.Object, q.r.codec(st), options(st))
		q.n.AddInstance(m.InstanceID())
		q.maps[key] = m
		return nil, m.Start(ctx)
	}
	m := q.maps[key]
	if m == nil {
		q.t.Fatalf("step %d: no map for %s", st.Step, key)
	}
	switch st.Op {
	case "put":
		return orNil(m.Put(ctx, st.Args["key"].(string), value(st.Args["value"])))
	case "get":
		return orNil(m.Get(ctx, st.Args["key"].(string)))
	case "clearLocalCache":
		return nil, m.ClearLocalCache(ctx)
	case "clear":
		return nil, m.Clear(ctx)
	}
	q.t.Fatalf("step %d: no action for %q", st.Step, st.Op)
	return nil, nil
}

// messages are the PUBLISH commands MONITOR saw since the last step, up
// to an ECHO of the marker sent now.
func (q *quietReplay) messages(step int) []any {
	require.NoError(q.t, q.raw.Echo(q.ctx, quietMarker).Err())
	out := []any{}
	deadline := time.After(10 * time.Second)
	for {
		select {
		case line, ok := <-q.mon.Lines():
			require.True(q.t, ok, "step %d: MONITOR ended", step)
			ml, ok := redistest.ParseMonitorLine(line)
			if !ok {
				continue
			}
			if ml.Command == "echo" && len(ml.Args) == 1 && ml.Args[0] == quietMarker {
				return out
			}
			if !strings.EqualFold(ml.Command, "publish") || len(ml.Args) != 2 {
				continue
			}
			ch := ml.Args[0]
			out = append(out, []any{q.n.QuietChannel(ch), q.n.Payload(ch, ml.Args[1])})
		case <-deadline:
			q.t.Fatalf("step %d: %s not seen", step, quietMarker)
		}
	}
}
