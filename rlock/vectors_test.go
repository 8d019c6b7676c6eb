package rlock_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/internal/vectors"
	"github.com/goredisson/redisson/rlock"
)

// TestJavaVectors replays every RLock scenario recorded with Java Redisson
// 3.52.0 with Go actors and compares outcome, messages and the whole Redis
// state after each step with the record.
func TestJavaVectors(t *testing.T) {
	f, err := vectors.Load("rlock.json")
	require.NoError(t, err)
	require.Equal(t, "3.52.0", f.RedissonVersion)
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	for _, sc := range f.Scenarios {
		t.Run(sc.Name, func(t *testing.T) { replay(t, srv, sc) })
	}
	_ = raw
}

type actor struct {
	client *redisson.Client
	base   context.Context
	holds  map[string][]context.Context // object → contexts of its holds, newest last
}

type outcome struct {
	ok     bool
	result any
	err    error
}

func replay(t *testing.T, srv *redistest.Server, sc vectors.Scenario) {
	ctx := context.Background()
	raw := redistest.Client(t, srv)
	require.NoError(t, raw.FlushAll(ctx).Err())

	opts := []redisson.Option{redisson.WithWatchdogTimeout(sc.WatchdogTimeout())}
	c1 := newClient(t, srv, opts...)
	c2 := newClient(t, srv, opts...)
	defer c1.Close()
	defer c2.Close()
	n := vectors.NewNormalizer(sc.TTLGridMS)
	n.AddClient(c1.ID(), "C1")
	n.AddClient(c2.ID(), "C2")
	actors := map[string]*actor{}
	for i, name := range []string{"T1", "T2", "T3"} {
		c := c1
		if sc.Actors[name] == "C2" {
			c = c2
		}
		id := int64(1000 + i)
		n.AddOwner(c.ID(), id, name)
		actors[name] = &actor{client: c, base: redisson.WithOwnerID(ctx, id), holds: map[string][]context.Context{}}
	}
	msgs, err := vectors.NewMessages(ctx, raw)
	require.NoError(t, err)
	defer msgs.Close()

	pending := map[string]chan outcome{}
	for _, st := range sc.Steps {
		got := map[string]any{}
		switch st.Kind {
		case "call":
			o := run(actors[st.Actor], st)
			record(got, o, n)
			if want, ok := st.Raw["completed"].([]any); ok {
				var done []any
				for _, w := range want {
					wm := w.(map[string]any)
					key := fmt.Sprint(wm["actor"], "/", wm["object"], "/", wm["op"])
					ch := pending[key]
					require.NotNil(t, ch, "no pending %s", key)
					select {
					case po := <-ch:
						entry := map[string]any{"actor": wm["actor"], "object": wm["object"], "op": wm["op"]}
						record(entry, po, n)
						done = append(done, entry)
						delete(pending, key)
					case <-time.After(10 * time.Second):
						t.Fatalf("step %d: %s did not complete", st.Step, key)
					}
				}
				got["completed"] = done
			}
		case "query":
			res := map[string]any{}
			for q := range st.Raw["result"].(map[string]any) {
				res[q] = query(t, actors[st.Actor], actors, st.Object, q, n)
			}
			got["ok"] = true
			got["result"] = res
		case "start":
			ch := make(chan outcome, 1)
			a := actors[st.Actor]
			go func() { ch <- run(a, st) }()
			pending[st.Actor+"/"+st.Object+"/"+st.Op] = ch
			time.Sleep(250 * time.Millisecond) // the records' settle time
			got["pending"] = len(ch) == 0
			chans, err := vectors.Channels(ctx, raw, n)
			require.NoError(t, err)
			got["subscribed_channels"] = chans
		case "await":
			key := st.Actor + "/" + st.Object + "/" + st.Op
			select {
			case o := <-pending[key]:
				record(got, o, n)
			case <-time.After(10 * time.Second):
				t.Fatalf("step %d: %s did not return", st.Step, key)
			}
		case "sleep":
			time.Sleep(time.Duration(st.MS) * time.Millisecond)
		default:
			t.Fatalf("unknown step kind %q", st.Kind)
		}
		m, err := msgs.Collect(ctx, n)
		require.NoError(t, err)
		got["messages"] = m
		state, err := n.Snapshot(ctx, raw)
		require.NoError(t, err)
		got["state"] = state
		compare(t, st, got)
	}
}

// run executes one call step for an actor, the way the Java op means it.
func run(a *actor, st vectors.Step) outcome {
	lock := a.client.Lock(st.Object)
	var opts []rlock.Option
	if d, ok := st.Arg("lease_ms"); ok {
		opts = append(opts, rlock.WithLease(d))
	}
	if d, ok := st.Arg("wait_ms"); ok {
		opts = append(opts, rlock.WithWait(d))
	}
	switch st.Op {
	case "lock":
		hctx, err := lock.Lock(a.base, opts...)
		if err != nil {
			return outcome{err: err}
		}
		a.holds[st.Object] = append(a.holds[st.Object], hctx)
		return outcome{ok: true}
	case "tryLock":
		hctx, ok, err := lock.TryLock(a.base, opts...)
		if err != nil {
			return outcome{err: err}
		}
		if ok {
			a.holds[st.Object] = append(a.holds[st.Object], hctx)
		}
		return outcome{ok: true, result: ok}
	case "unlock":
		ctx := a.base
		stack := a.holds[st.Object]
		if len(stack) > 0 {
			ctx = stack[len(stack)-1]
		}
		if err := lock.Unlock(ctx); err != nil {
			return outcome{err: err}
		}
		if len(stack) > 0 {
			a.holds[st.Object] = stack[:len(stack)-1]
		}
		return outcome{ok: true}
	case "forceUnlock":
		ok, err := lock.ForceUnlock(a.base)
		if err != nil {
			return outcome{err: err}
		}
		return outcome{ok: true, result: ok}
	}
	return outcome{err: fmt.Errorf("unknown op %q", st.Op)}
}

func query(t *testing.T, a *actor, actors map[string]*actor, object, q string, n *vectors.Normalizer) any {
	ctx := a.base
	lock := a.client.Lock(object)
	var (
		v   any
		err error
	)
	switch {
	case q == "isLocked":
		v, err = lock.IsLocked(ctx)
	case q == "isHeldByCurrentThread":
		v, err = lock.IsHeldBy(ctx)
	case q == "getHoldCount":
		v, err = lock.HoldCount(ctx)
	case q == "remainTimeToLive":
		var d time.Duration
		d, err = lock.RemainTTL(ctx)
		v = n.TTL(d)
	case strings.HasPrefix(q, "isHeldByThread("):
		other := actors[strings.TrimSuffix(strings.TrimPrefix(q, "isHeldByThread("), ")")]
		owner, _ := redisson.OwnerFromContext(other.base)
		v, err = lock.IsHeldByOwner(ctx, owner)
	default:
		t.Fatalf("unknown query %q", q)
	}
	require.NoError(t, err, q)
	return v
}

// javaClass maps our errors to the Java exception a Redisson client throws.
func javaClass(err error) string {
	switch {
	case errors.Is(err, redisson.ErrNotOwner):
		return "java.lang.IllegalMonitorStateException"
	}
	return fmt.Sprintf("unmapped Go error: %v", err)
}

func record(into map[string]any, o outcome, n *vectors.Normalizer) {
	if o.err != nil {
		into["ok"] = false
		into["error"] = map[string]any{"class": javaClass(o.err)}
		return
	}
	into["ok"] = true
	if o.result != nil {
		into["result"] = o.result
	}
}

// compare checks the fields a replay must reproduce (vectors README §5).
func compare(t *testing.T, st vectors.Step, got map[string]any) {
	t.Helper()
	want := st.Raw
	for _, field := range []string{"ok", "result", "messages", "state", "pending", "completed"} {
		w, inWant := want[field]
		g, inGot := got[field]
		if !inWant && !inGot {
			continue
		}
		if field == "completed" {
			w = stripMessages(w)
		}
		require.Equal(t, vectors.JSON(w), vectors.JSON(g), "step %d (%s %s %s): %s", st.Step, st.Actor, st.Op, st.Java, field)
	}
	if w, ok := want["error"].(map[string]any); ok {
		g, _ := got["error"].(map[string]any)
		require.NotNil(t, g, "step %d: expected error %v", st.Step, w["class"])
		require.Equal(t, w["class"], g["class"], "step %d: error class", st.Step)
	}
	if w, ok := want["subscribed_channels"].([]any); ok {
		g, _ := got["subscribed_channels"].([]any)
		for _, ch := range w {
			require.Contains(t, g, ch, "step %d: subscribed channels", st.Step)
		}
	}
}

// stripMessages drops Java's exception text from completed entries: only
// the class is compared.
func stripMessages(v any) any {
	list, ok := v.([]any)
	if !ok {
		return v
	}
	out := make([]any, len(list))
	for i, e := range list {
		m := map[string]any{}
		for k, val := range e.(map[string]any) {
			if k == "error" {
				em := val.(map[string]any)
				val = map[string]any{"class": em["class"]}
			}
			m[k] = val
		}
		out[i] = m
	}
	return out
}
