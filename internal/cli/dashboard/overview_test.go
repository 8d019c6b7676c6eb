package dashboard

import (
	"context"
	"encoding/json"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/goredisson/redisson/internal/cli/ls"
	"github.com/goredisson/redisson/internal/cli/objinfo"
)

func lsStateOf(now int64, objs ...ls.Object) *lsState {
	return newLsState(LsView{Result: &ls.Result{Pattern: "*", Objects: objs, MaxKeys: 10}, NowMs: now})
}

func heldLock(name string, heldFor, ttl int64) ls.Object {
	return ls.Object{Name: name, Kind: "lock", State: "held", Held: true, TTLms: ttl,
		Holders: []objinfo.Holder{{Field: "id:1", Holds: 1, HeldForMs: &heldFor}}}
}

// TestViewerQuery: the server filters, sorts and pages as the page did.
func TestViewerQuery(t *testing.T) {
	st := lsStateOf(1000,
		heldLock("b:one", 10, 5000), heldLock("a:two", 30, -1),
		ls.Object{Name: "c:sem", Kind: "semaphore", State: "3 permits", TTLms: 100, Holders: []objinfo.Holder{}},
		ls.Object{Name: "A:three", Kind: "latch", State: "count 1", TTLms: -1, Holders: []objinfo.Holder{}, Waiters: 4})
	for _, c := range []struct {
		query string
		want  []string
		match int
	}{
		{"", []string{"A:three", "a:two", "b:one", "c:sem"}, 4},
		{"q=id:1", []string{"a:two", "b:one"}, 2},
		{"q=LOCK+one", []string{"b:one"}, 1},
		{"held=1&sort=held&dir=desc", []string{"a:two", "b:one"}, 2},
		{"kind=semaphore", []string{"c:sem"}, 1},
		{"sort=ttl", []string{"c:sem", "b:one", "A:three", "a:two"}, 4},
		{"sort=waiters&dir=desc&limit=1", []string{"A:three"}, 4},
		{"offset=1&limit=2", []string{"a:two", "b:one"}, 4},
		{"offset=9", []string{}, 4},
		{"sort=nonsense", []string{"A:three", "a:two", "b:one", "c:sem"}, 4},
	} {
		v, _ := url.ParseQuery(c.query)
		name, ev := newViewer(parseViewQuery(v)).next(st)
		got := ev.Order
		if got == nil {
			got = []string{}
		}
		if name != "snapshot" || !slices.Equal(got, c.want) || ev.Matched != c.match || ev.Total != 4 || len(ev.Upsert) != len(c.want) {
			t.Errorf("%q: %s order %v matched %d total %d upserts %d; want %v, %d", c.query, name, got, ev.Matched, ev.Total, len(ev.Upsert), c.want, c.match)
		}
	}
}

// TestViewerFilterGone: the filter's word "gone" finds the rows with a
// holder whose client is gone, and only them.
func TestViewerFilterGone(t *testing.T) {
	withClient := func(name string, gone bool, more ...objinfo.Holder) ls.Object {
		o := heldLock(name, 10, -1)
		o.Holders[0].Client = &objinfo.ClientInfo{Host: "h", PID: 7, Program: "worker", Gone: gone, SeenAgoMs: 9000}
		o.Holders = append(o.Holders, more...)
		return o
	}
	second := objinfo.Holder{Field: "id:2", Holds: 1, Client: &objinfo.ClientInfo{Host: "h", PID: 8, Program: "reader", Gone: true}}
	st := lsStateOf(1000, withClient("alive", false), withClient("dead", true), withClient("readers", false, second),
		heldLock("unknown", 10, -1), ls.Object{Name: "gone:key", Kind: "bucket", State: "3 bytes", TTLms: -1, Holders: []objinfo.Holder{}})
	for _, c := range []struct {
		query string
		want  []string
	}{
		{"q=gone", []string{"dead", "gone:key", "readers"}},
		{"q=GONE+worker", []string{"dead", "readers"}},
		{"q=gone&held=1", []string{"dead", "readers"}},
		{"q=worker", []string{"alive", "dead", "readers"}},
	} {
		v, _ := url.ParseQuery(c.query)
		_, ev := newViewer(parseViewQuery(v)).next(st)
		if !slices.Equal(ev.Order, c.want) {
			t.Errorf("%q: %v, want %v", c.query, ev.Order, c.want)
		}
	}
}

// TestViewerDiff: after the snapshot only rows that changed are sent; a
// row whose durations only moved on with the clock is not sent again.
func TestViewerDiff(t *testing.T) {
	v := newViewer(parseViewQuery(url.Values{}))
	if name, ev := v.next(lsStateOf(1000, heldLock("x", 100, 9000), heldLock("y", 50, -1))); name != "snapshot" || len(ev.Upsert) != 2 {
		t.Fatalf("first: %s %+v", name, ev)
	}
	// A second later, nothing happened but time.
	if name, ev := v.next(lsStateOf(2000, heldLock("x", 1100, 8000), heldLock("y", 1050, -1))); ev != nil {
		t.Fatalf("unchanged state sent as %s %+v", name, ev)
	}
	// y re-acquired (its hold started again), z added, x removed.
	name, ev := v.next(lsStateOf(3000, heldLock("y", 10, -1), heldLock("z", 5, 100)))
	var y ls.Object
	if name != "diff" || len(ev.Upsert) != 2 || json.Unmarshal(ev.Upsert["y"], &y) != nil || *y.Holders[0].HeldForMs != 10 ||
		ev.Upsert["z"] == nil || !slices.Equal(ev.Remove, []string{"x"}) || !slices.Equal(ev.Order, []string{"y", "z"}) {
		t.Fatalf("diff: %s %+v", name, ev)
	}
	// The TTL set again: the deadline moved, so the row is sent.
	name, ev = v.next(lsStateOf(4000, heldLock("y", 1010, -1), heldLock("z", 1005, 30000)))
	if name != "diff" || len(ev.Upsert) != 1 || ev.Upsert["z"] == nil || ev.Order != nil || ev.Remove != nil {
		t.Fatalf("ttl reset: %s %+v", name, ev)
	}
}

// nextOverview waits for an overview event that satisfies cond.
func nextOverview(t *testing.T, ch <-chan [2]string, what string, cond func(name string, ev overviewEvent) bool) overviewEvent {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		select {
		case e, ok := <-ch:
			if !ok {
				t.Fatalf("stream ended waiting for %s", what)
			}
			var ev overviewEvent
			if err := json.Unmarshal([]byte(e[1]), &ev); err != nil {
				t.Fatalf("bad %s event: %v: %s", e[0], err, e[1])
			}
			if cond(e[0], ev) {
				return ev
			}
		case <-deadline:
			t.Fatalf("no overview event with %s", what)
		}
	}
}

// TestOverviewEvents: the overview stream over Redis sends a snapshot of
// the filtered page, then a lock taken as an added row, a second lock
// without the first again, and a release as a removed row.
func TestOverviewEvents(t *testing.T) {
	t.Parallel()
	_, rdb := server(t)
	srv, _ := dashServer(t, rdb, dashOptions{})
	if err := rdb.Set(context.Background(), "other", "1", 0).Err(); err != nil {
		t.Fatal(err)
	}
	ch := events(t, srv, "/events/overview?q=ov:&sort=name")
	nextOverview(t, ch, "an empty snapshot", func(name string, ev overviewEvent) bool {
		return name == "snapshot" && len(ev.Order) == 0 && ev.Matched == 0
	})
	ha, _ := holdLock(t, rdb, "ov:a")
	nextOverview(t, ch, "ov:a added", func(name string, ev overviewEvent) bool {
		return name == "diff" && ev.Upsert["ov:a"] != nil && slices.Equal(ev.Order, []string{"ov:a"}) && ev.Matched == 1
	})
	holdLock(t, rdb, "ov:b")
	ev := nextOverview(t, ch, "ov:b added", func(name string, ev overviewEvent) bool { return ev.Upsert["ov:b"] != nil })
	if ev.Upsert["ov:a"] != nil || !slices.Equal(ev.Order, []string{"ov:a", "ov:b"}) {
		t.Errorf("ov:a sent again or order wrong: %+v", ev)
	}
	if err := ha.Unlock(context.Background()); err != nil {
		t.Fatal(err)
	}
	nextOverview(t, ch, "ov:a removed", func(name string, ev overviewEvent) bool {
		return slices.Equal(ev.Remove, []string{"ov:a"}) && slices.Equal(ev.Order, []string{"ov:b"})
	})
}
