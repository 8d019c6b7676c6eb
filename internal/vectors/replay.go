package vectors

import (
	"context"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson/internal/redistest"
)

// settleTime is how long a "start" step lets its blocking call run before
// recording (testdata/README.md, step kinds): the records' TTL buckets count
// it, so it is a fixed sleep by definition.
const settleTime = 250 * time.Millisecond

// awaitTimeout bounds the wait for a started call to return.
const awaitTimeout = 10 * time.Second

// Actor is one Java thread of a scenario: a fixed owner id on one of the two
// clients. It keeps, per object, the holds its calls took, newest last, so
// that an unlock releases the newest (what a Java thread's unlock does to
// its re-entry count).
type Actor[C, H any] struct {
	Name   string // "T1"
	Client C      // its client, C1 or C2
	Owner  int64  // its owner id (Redisson's thread id)

	mu    sync.Mutex
	holds map[string][]H
	norm  *Normalizer
}

// PermitID is a permit id (32 hex) a call returns; the replay records it
// as its placeholder, <Pn> (testdata/README.md §4.5).
type PermitID string

// PermitID returns the permit id behind a placeholder of the records
// ("<P1>"), once the replay has seen it.
func (a *Actor[C, H]) PermitID(placeholder string) (string, bool) {
	for id, p := range a.norm.permits {
		if "<"+p+">" == placeholder {
			return id, true
		}
	}
	return "", false
}

// Normalizer returns the replay's normalizer, for a call that has ids of
// its own to number (Normalizer.AddInstance).
func (a *Actor[C, H]) Normalizer() *Normalizer { return a.norm }

// SkipRequest takes the next unlock-latch number (<Rn>, §4.4) for a
// request the Java thread made where the Go call makes none (an unlock
// without a hold sends nothing), so that the later requests keep the
// record's numbers.
func (a *Actor[C, H]) SkipRequest() {
	n := a.norm
	n.requests[fmt.Sprintf("skipped %d", len(n.requests))] = "R" + strconv.Itoa(len(n.requests)+1)
}

// Push records a hold of object taken by the actor.
func (a *Actor[C, H]) Push(object string, h H) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.holds[object] = append(a.holds[object], h)
}

// Pop takes the actor's newest hold of object, if it has one.
func (a *Actor[C, H]) Pop(object string) (H, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	stack := a.holds[object]
	if len(stack) == 0 {
		var zero H
		return zero, false
	}
	h := stack[len(stack)-1]
	a.holds[object] = stack[:len(stack)-1]
	return h, true
}

// Call runs one "call" (or "start") step's op for actor a on object st.Object
// with st.Args, the way st.Java means it. A non-nil result is recorded as
// the call's "result" (a void Java call returns nil); an error is recorded
// as the Java exception Actions.ErrorClass names.
type Call[C, H any] func(ctx context.Context, a *Actor[C, H], st Step) (result any, err error)

// Query runs one read-only operation of a "query" step for actor a on
// object. arg is the actor named in the operation's parentheses, e.g. T1 in
// "isHeldByThread(T1)", or nil. A time.Duration result is recorded as a
// TTL (Normalizer.TTL).
type Query[C, H any] func(ctx context.Context, a *Actor[C, H], object string, arg *Actor[C, H]) (any, error)

// ValueQuery runs one read-only operation of a "query" step whose
// parentheses hold a Java value rather than an actor, e.g. "b" in
// `contains("b")` or 1L in `contains(1L)` (§8.3): arg is that text as
// recorded.
type ValueQuery[C, H any] func(ctx context.Context, a *Actor[C, H], object string, arg string) (any, error)

// Actions is one object type's table for the replay: how to make a client,
// what each op and query of the records means in Go, how errors map to Java
// exceptions, and the decided deviations.
type Actions[C, H any] struct {
	// NewClient returns a client for the scenario's settings and its
	// client id (the UUID of owner fields). t is the attempt's (see
	// ReplayFresh): the client's Close registered with t.Cleanup runs
	// when the attempt ends.
	NewClient func(t testing.TB, srv *redistest.Server, sc Scenario) (client C, id string)
	Calls     map[string]Call[C, H]
	Queries   map[string]Query[C, H]
	// ValueQueries are the queries that take a Java value in their
	// parentheses (collections.json), by name.
	ValueQueries map[string]ValueQuery[C, H]
	// ErrorClass names the Java exception a Redisson client throws where
	// this library returns err.
	ErrorClass func(err error) string
	Deviations []Deviation
	// Settling names the queries whose answer another client changes
	// when a message reaches it, after the step that sent the message
	// returned (a near cache): the replay asks again until the answer is
	// the record's (deviations applied), for 10 s at most, rather than
	// trust the recorded settle time to cover a busy scheduler.
	Settling map[string]bool
	// StreamIDs numbers reliable-topic subscriber ids and stream entry
	// ids (§8.2, Normalizer.NumberStreamIDs).
	StreamIDs bool
	// IgnoreCommand, when set, drops the commands of the replay's own
	// command log it matches before they are compared: calls this
	// library's scripts make by decision and Redisson's recorded ones do
	// not (say why where it is set).
	IgnoreCommand func(cmd []any) bool
	// CommandsFirst reads a step's commands before its state, so that
	// ids numbered as first seen (§10's log entries) are numbered in
	// the commands' order, as the recorder did.
	CommandsFirst bool
	// AllCommands compares every command of a "commands" record (§8.1),
	// the scripts' own Redis calls ("lua") included, but not the EVALSHA
	// lines themselves: this library's scripts make Redisson's calls with
	// its own script text, so only their SHA-1 differs.
	AllCommands bool
	// KeptLatch: this library keeps its unlock latch (docs/interop.md)
	// where the recorded Redisson sends DEL for a latch key after each
	// unlock (3.52.0 names its client id, a key that never exists; 4.7.0
	// the latch): that DEL is not expected in the commands.
	KeptLatch bool
	// UnlatchedStates: the record's states hold no unlock latch (4.7.0
	// deletes it, where this library keeps it), so latch keys are left
	// out of both sides' states.
	UnlatchedStates bool
	// Raw, when set, runs the "raw" steps it handles (handled true)
	// instead of sending their command: a record's command with
	// placeholders only the object's table can fill (say which where it
	// is set).
	Raw func(ctx context.Context, raw *redis.Client, st Step) (reply any, handled bool, err error)
	// Quiet replays a quiet scenario (quiet.go): no PSUBSCRIBE *, the
	// messages from MONITOR. SemaphoreFilter also leaves out of the
	// commands what the adders' records leave out (semaphoreFiltered).
	Quiet, SemaphoreFilter bool
}

// Owner ids of the actors T1, T2, T3.
const firstOwner = 1000

// Replay runs scenario sc on srv with two clients, C1 and C2, and actors
// T1, T2 (on C1 unless the scenario says otherwise) and T3, and compares
// every step's outcome, published messages and the whole normalized Redis
// state with the record (testdata/README.md §5). A scenario that differs
// from the record while the replay's own overhead may have shifted a
// bucket is replayed from scratch, up to Attempts times (RetryOnOverhead);
// a pass is still an exact match. acts keeps no state of its own between
// steps (the actors keep the holds); a table that does uses ReplayFresh.
func Replay[C, H any](t *testing.T, srv *redistest.Server, sc Scenario, acts Actions[C, H]) {
	t.Helper()
	ReplayFresh(t, srv, sc, func(testing.TB) Actions[C, H] { return acts })
}

// ReplayFresh is Replay for an Actions table with state of its own across
// steps (subscriptions, inboxes, a count of the clients made): newActions
// makes the table of one attempt, so that every attempt starts afresh, as
// do its database (flushed), clients and actors. newActions and the
// table's NewClient get the attempt's t: the functions registered with its
// Cleanup run when the attempt ends, newest first, before the next attempt
// starts; its failures are the test's.
func ReplayFresh[C, H any](t *testing.T, srv *redistest.Server, sc Scenario, newActions func(t testing.TB) Actions[C, H]) {
	t.Helper()
	raw := redistest.Client(t, srv)
	RetryOnOverhead(t, sc.Name, sc.TTLGridMS, func() (*Mismatch, time.Duration) {
		return replayOnce(t, srv, raw, sc, newActions, nil)
	})
}

// attemptT is the testing.TB of one attempt: what is registered with its
// Cleanup runs when the attempt ends; everything else is the test's.
type attemptT struct {
	testing.TB
	mu       sync.Mutex
	cleanups []func()
}

func (a *attemptT) Cleanup(f func()) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.cleanups = append(a.cleanups, f)
}

// end runs the attempt's cleanups, newest first.
func (a *attemptT) end() {
	a.mu.Lock()
	fs := a.cleanups
	a.cleanups = nil
	a.mu.Unlock()
	for i := len(fs) - 1; i >= 0; i-- {
		fs[i]()
	}
}

// replayOnce replays sc once from an empty database with the clients and
// actors of a new table, and returns the first difference from the record
// with the overhead measured at its step, or nil. stall, when set (the
// package's own tests), returns extra time to spend before a step's
// snapshot: overhead the replay did not cause itself.
func replayOnce[C, H any](t *testing.T, srv *redistest.Server, raw *redis.Client, sc Scenario,
	newActions func(t testing.TB) Actions[C, H], stall func(step int) time.Duration) (*Mismatch, time.Duration) {
	t.Helper()
	at := &attemptT{TB: t}
	// Cancelled when the attempt ends, so that a call still pending when
	// it stopped at a difference returns.
	ctx, cancel := context.WithCancel(context.Background())
	r := &replay[C, H]{t: t, ctx: ctx, raw: raw, pending: map[string]chan outcome{}, stall: stall}
	defer func() {
		cancel()
		at.end()
		r.drain(func(key string) { t.Errorf("%s still running after the attempt ended", key) })
	}()
	if err := raw.FlushAll(ctx).Err(); err != nil {
		t.Fatalf("FLUSHALL: %v", err)
	}
	r.begin(at, srv, sc, newActions(at))
	msgs, err := newCapture(ctx, raw, r.acts.Quiet)
	if err != nil {
		t.Fatalf("capture messages: %v", err)
	}
	defer msgs.Close()
	r.msgs = msgs
	if _, named := sc.Config["clientName"]; named {
		// The record lists the pub/sub commands of the clients, named
		// C1 and C2 (NewClient must name its connections so).
		r.cmds = startCommandLog(t, srv, raw)
		r.cmds.all = r.acts.AllCommands
		r.cmds.quiet, r.cmds.semaphoreFilter = r.acts.Quiet, r.acts.SemaphoreFilter
		defer r.cmds.close()
	}
	if r.acts.Quiet && r.cmds == nil {
		t.Fatalf("%s: a quiet replay reads its messages from the command log, which needs clientName", sc.Name)
	}
	applied := map[int]bool{}
	r.clock.Start()
	for _, st := range sc.Steps {
		got, over := r.observe(st)
		want := st.Raw
		if r.cmds != nil && r.cmds.all {
			want = withoutScriptCalls(want)
		}
		if r.acts.KeptLatch {
			want = withoutCommands(want, latchDEL)
		}
		if r.acts.UnlatchedStates {
			want = maps.Clone(want)
			want["state"], got["state"] = withoutLatches(want["state"]), withoutLatches(got["state"])
		}
		for i, d := range r.deviations {
			if d.Step == st.Step {
				want = r.deviate(want, st, d)
				applied[i] = true
			}
		}
		if mm := r.compare(st, want, got); mm != nil {
			return mm, over
		}
	}
	for i, d := range r.deviations {
		if !applied[i] {
			t.Fatalf("deviation at %s step %d matches no step", d.Scenario, d.Step)
		}
	}
	r.drain(func(key string) { t.Fatalf("%s still running at the end of the scenario", key) })
	return nil, 0
}

// begin sets up an attempt of sc with the table acts: its normalizer, the
// clients C1 and C2 and the actors T1, T2, T3, and the deviations of sc.
func (r *replay[C, H]) begin(at *attemptT, srv *redistest.Server, sc Scenario, acts Actions[C, H]) {
	r.acts = acts
	n := NewNormalizer(sc.TTLGridMS)
	if acts.StreamIDs {
		n.NumberStreamIDs()
	}
	r.n = n
	c1, id1 := acts.NewClient(at, srv, sc)
	c2, id2 := acts.NewClient(at, srv, sc)
	n.AddClient(id1, "C1")
	n.AddClient(id2, "C2")
	r.actors = map[string]*Actor[C, H]{}
	for i, name := range []string{"T1", "T2", "T3"} {
		c, id := c1, id1
		if sc.Actors[name] == "C2" {
			c, id = c2, id2
		}
		owner := int64(firstOwner + i)
		n.AddOwner(id, owner, name)
		r.actors[name] = &Actor[C, H]{Name: name, Client: c, Owner: owner, holds: map[string][]H{}, norm: n}
	}
	for _, d := range acts.Deviations {
		if d.Scenario == sc.Name {
			r.deviations = append(r.deviations, d)
		}
	}
}

// observe runs step st and returns what the replay recorded of it, state
// and messages included, and the overhead measured before its snapshot.
func (r *replay[C, H]) observe(st Step) (map[string]any, time.Duration) {
	t := r.t
	if r.cmds != nil {
		r.cmds.begin(st.Step)
	}
	got := r.step(st)
	if ms, ok := st.Raw["settle_ms"].(float64); ok {
		d := time.Duration(ms) * time.Millisecond
		time.Sleep(d) // recorded: the library finishes asynchronously
		r.clock.AddNominal(d)
	}
	// One round trip ends the step: its command log's marker, the
	// messages' marker (awaited after the snapshot, so that its
	// delivery overlaps the snapshot's reads), the names of the
	// connections and the pub/sub state.
	_, withPubSub := st.Raw["pubsub"]
	end, err := r.endStep(st.Step, r.msgs, r.cmds != nil, withPubSub)
	if err != nil {
		t.Fatalf("step %d: %v", st.Step, err)
	}
	if r.stall != nil {
		time.Sleep(r.stall(st.Step))
	}
	// Read just before the snapshot reads the clock its buckets count
	// from.
	over := r.clock.Overhead()
	if r.cmds != nil && r.acts.CommandsFirst {
		got["commands"] = r.ownCommands(st.Step, end.names)
	}
	state, err := r.n.Snapshot(r.ctx, r.raw)
	if err != nil {
		t.Fatalf("step %d: %v", st.Step, err)
	}
	got["state"] = state
	if r.cmds != nil && !r.acts.CommandsFirst {
		got["commands"] = r.ownCommands(st.Step, end.names)
	}
	if withPubSub {
		got["pubsub"] = end.pubsub
	}
	m, err := r.msgs.wait(r.ctx, r.n, end.mark)
	if err != nil {
		t.Fatalf("step %d: %v", st.Step, err)
	}
	got["messages"] = m
	if r.acts.Quiet {
		got["messages"] = r.cmds.published
	}
	return got, over
}

// stepEnd is what endStep read.
type stepEnd struct {
	mark   string            // the messages' marker
	names  map[string]string // connection address → client name
	pubsub map[string]any    // the "pubsub" record
}

// endStep sends, in one pipeline, the command log's end marker and CLIENT
// LIST (withCommands), the messages' marker, and the reads of the "pubsub"
// record (withPubSub).
func (r *replay[C, H]) endStep(step int, msgs *Messages, withCommands, withPubSub bool) (stepEnd, error) {
	var end stepEnd
	var list *redis.StringCmd
	var ps pubsubCmds
	_, err := r.raw.Pipelined(r.ctx, func(p redis.Pipeliner) error {
		if withCommands {
			p.Echo(r.ctx, marker(step, "end"))
		}
		end.mark = msgs.mark(r.ctx, p)
		if withCommands {
			list = p.ClientList(r.ctx)
		}
		if withPubSub {
			ps = queuePubSub(r.ctx, p)
		}
		return nil
	})
	if err != nil {
		return end, err
	}
	if withCommands {
		end.names = clientNames(list.Val())
	}
	if withPubSub {
		end.pubsub = ps.state(r.n)
	}
	return end, nil
}

// drain waits for the calls still pending, each for up to awaitTimeout,
// and reports those that did not return.
func (r *replay[C, H]) drain(stuck func(key string)) {
	for key, ch := range r.pending {
		select {
		case <-ch:
		case <-time.After(awaitTimeout):
			stuck(key)
		}
		delete(r.pending, key)
	}
}

type outcome struct {
	result any
	err    error
}

type replay[C, H any] struct {
	t          *testing.T
	ctx        context.Context
	raw        *redis.Client
	n          *Normalizer
	acts       Actions[C, H]
	actors     map[string]*Actor[C, H]
	pending    map[string]chan outcome
	deviations []Deviation
	clock      Clock
	msgs       *Messages   // the capture of published messages
	cmds       *commandLog // the command log, for a scenario that names its clients
	// stall returns extra time to spend before a step's snapshot (see
	// replayOnce), when set.
	stall func(step int) time.Duration
}

func (r *replay[C, H]) actor(st Step) *Actor[C, H] {
	a := r.actors[st.Actor]
	if a == nil {
		r.t.Fatalf("step %d: unknown actor %q", st.Step, st.Actor)
	}
	return a
}

func (r *replay[C, H]) call(a *Actor[C, H], st Step) outcome {
	call := r.acts.Calls[st.Op]
	if call == nil {
		return outcome{err: fmt.Errorf("no action for op %q", st.Op)}
	}
	res, err := call(r.ctx, a, st)
	return outcome{res, err}
}

// step runs one step and returns what it recorded, without messages and
// state.
func (r *replay[C, H]) step(st Step) map[string]any {
	t := r.t
	got := map[string]any{}
	switch st.Kind {
	case "call":
		r.record(got, r.call(r.actor(st), st))
		if want, ok := st.Raw["completed"].([]any); ok {
			var done []any
			for _, w := range want {
				wm := w.(map[string]any)
				key := fmt.Sprint(wm["actor"], "/", wm["object"], "/", wm["op"])
				entry := map[string]any{"actor": wm["actor"], "object": wm["object"], "op": wm["op"]}
				r.record(entry, r.await(st, key))
				done = append(done, entry)
			}
			got["completed"] = done
		}
	case "query":
		a := r.actor(st)
		res := map[string]any{}
		for _, q := range st.Queries { // in the recorded order
			res[q] = r.settledQuery(st, a, q)
		}
		got["ok"] = true
		got["result"] = res
	case "start":
		a := r.actor(st)
		ch := make(chan outcome, 1)
		go func() { ch <- r.call(a, st) }()
		r.pending[st.Actor+"/"+st.Object+"/"+st.Op] = ch
		time.Sleep(settleTime)
		r.clock.AddNominal(settleTime)
		got["pending"] = len(ch) == 0
		if want, ok := st.Raw["subscribed_channels"].([]any); ok && len(ch) == 0 {
			// A slow machine may need longer than the settle time to
			// subscribe: wait for what Java had subscribed, with a
			// deadline, before recording. The library's time, counted
			// as nominal (Clock).
			began := time.Now()
			redistest.Eventually(t, 5*time.Second, "the started call subscribed", func() bool {
				chans, err := Channels(r.ctx, r.raw, r.n)
				return err == nil && containsAll(chans, want)
			})
			r.clock.AddNominal(time.Since(began))
		}
		chans, err := Channels(r.ctx, r.raw, r.n)
		if err != nil {
			t.Fatalf("step %d: %v", st.Step, err)
		}
		got["subscribed_channels"] = chans
	case "await":
		r.record(got, r.await(st, st.Actor+"/"+st.Object+"/"+st.Op))
	case "sleep":
		d := time.Duration(st.MS) * time.Millisecond
		time.Sleep(d) // recorded: the TTLs that follow count it
		r.clock.AddNominal(d)
	case "raw":
		if r.acts.Raw != nil {
			if reply, ok, err := r.acts.Raw(r.ctx, r.raw, st); ok {
				if err != nil {
					reply = fmt.Sprintf("raw step %d failed: %v", st.Step, err)
				}
				got["reply"] = reply
				break
			}
		}
		// What a Go service would send, over the recorder's connection.
		args := r.n.rawArgs(st.Raw["command"].([]any))
		reply, err := r.raw.Do(r.ctx, args...).Result()
		if err != nil {
			reply = fmt.Sprintf("raw %v failed: %v", args, err) // differs from any recorded reply
		}
		got["reply"] = reply
	default:
		t.Fatalf("step %d: unknown step kind %q", st.Step, st.Kind)
	}
	return got
}

func (r *replay[C, H]) await(st Step, key string) outcome {
	ch := r.pending[key]
	if ch == nil {
		r.t.Fatalf("step %d: no pending %s", st.Step, key)
	}
	// The wait is the library's time, counted as nominal (Clock): a late
	// result fails rather than earning another attempt.
	began := time.Now()
	defer func() { r.clock.AddNominal(time.Since(began)) }()
	select {
	case o := <-ch:
		delete(r.pending, key)
		return o
	case <-time.After(awaitTimeout):
		r.t.Fatalf("step %d: %s did not return", st.Step, key)
	}
	return outcome{}
}

func (r *replay[C, H]) record(into map[string]any, o outcome) {
	if o.err != nil {
		into["ok"] = false
		into["error"] = map[string]any{"class": r.acts.ErrorClass(o.err)}
		return
	}
	into["ok"] = true
	switch res := o.result.(type) {
	case nil:
	case PermitID:
		into["result"] = r.n.Permit(string(res))
	default:
		into["result"] = res
	}
}

// compare returns the first field a replay must reproduce
// (testdata/README.md §5) that differs from the record, or nil.
func (r *replay[C, H]) compare(st Step, want, got map[string]any) *Mismatch {
	where := fmt.Sprintf("step %d (%s %s %s)", st.Step, st.Actor, st.Op, st.Java)
	for _, field := range []string{"ok", "result", "messages", "state", "pending", "completed", "reply", "pubsub", "commands"} {
		w, inWant := want[field]
		g, inGot := got[field]
		if !inWant && !inGot {
			continue
		}
		if field == "completed" {
			w = stripMessages(w)
		}
		w, g = JSON(w), JSON(g)
		if field == "state" {
			// Members of a sorted set that share a recorded score
			// compare as a multiset (Untied).
			w, g = Untied(w), Untied(g)
		}
		if !reflect.DeepEqual(w, g) {
			return &Mismatch{Where: where, Field: field, Want: w, Got: g}
		}
	}
	if w, ok := want["error"].(map[string]any); ok {
		g, _ := got["error"].(map[string]any)
		if g["class"] != w["class"] {
			return &Mismatch{Where: where, Field: "error class", Want: w["class"], Got: g["class"]}
		}
	}
	if w, ok := want["subscribed_channels"].([]any); ok {
		g, _ := got["subscribed_channels"].([]any)
		if !containsAll(g, w) {
			return &Mismatch{Where: where, Field: "subscribed channels (all of want among got)", Want: w, Got: g}
		}
	}
	return nil
}

func containsAll(have, want []any) bool {
	for _, w := range want {
		if !slices.Contains(have, w) {
			return false
		}
	}
	return true
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

// ownCommands is the step's command log, less the commands the replay's
// Actions.IgnoreCommand drops.
func (r *replay[C, H]) ownCommands(step int, names map[string]string) []any {
	cmds := r.cmds.end(step, names, r.n)
	if ignore := r.acts.IgnoreCommand; ignore != nil {
		cmds = slices.DeleteFunc(cmds, func(c any) bool { l, _ := c.([]any); return ignore(l) })
	}
	return cmds
}
