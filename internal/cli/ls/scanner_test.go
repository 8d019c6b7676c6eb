package ls

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/cli/objinfo"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/internal/registry"
	"github.com/goredisson/redisson/keys"
	"github.com/goredisson/redisson/rlock"
)

// fill writes n plain strings filler:<i>, so that a pass of the scanner
// takes several calls.
func fill(t *testing.T, rdb *redis.Client, n int) {
	t.Helper()
	ctx := context.Background()
	pipe := rdb.Pipeline()
	for i := range n {
		pipe.Set(ctx, fmt.Sprintf("filler:%05d", i), i, 0)
	}
	if _, err := pipe.Exec(ctx); err != nil {
		t.Fatal(err)
	}
}

// steady is a listing's objects without what moves on by itself (TTLs,
// hold ages, when a client was seen), as JSON, by name.
func steady(t *testing.T, r *Result) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, o := range r.Objects {
		o.TTLms = 0
		hs := make([]objinfo.Holder, len(o.Holders))
		copy(hs, o.Holders)
		for i := range hs {
			hs[i].HeldForMs = nil
			if c := hs[i].Client; c != nil {
				cc := *c
				cc.SeenAgoMs, cc.SeenMs = 0, 0
				hs[i].Client = &cc
			}
		}
		o.Holders = hs
		b, err := json.Marshal(o)
		if err != nil {
			t.Fatal(err)
		}
		out[o.Name] = string(b)
	}
	return out
}

// find returns the object name of r, or nil.
func find(r *Result, name string) *Object {
	for i := range r.Objects {
		if r.Objects[i].Name == name {
			return &r.Objects[i]
		}
	}
	return nil
}

// untilPasses calls Next until n more whole passes have ended after the
// call in progress, checking each listing with check; it returns the last
// listing.
func untilPasses(t *testing.T, s *Scanner, n int, check func(*Result)) *Result {
	t.Helper()
	want := s.passes + n + 1 // the pass under way may have begun before the change
	var r *Result
	for calls := 0; s.passes < want; calls++ {
		if calls > (n+2)*(s.passTicks()+2) {
			t.Fatalf("%d calls made no %d whole passes", calls, n)
		}
		var err error
		if r, err = s.Next(context.Background()); err != nil {
			t.Fatal(err)
		}
		if check != nil {
			check(r)
		}
	}
	return r
}

func next(t *testing.T, s *Scanner) *Result {
	t.Helper()
	r, err := s.Next(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestScannerMatchesList: the first call (a whole pass) and a later one
// after a pass without changes list what List lists.
func TestScannerMatchesList(t *testing.T) {
	t.Parallel()
	s := redistest.StartServer(t)
	rdb := redistest.Client(t, s)
	ctx := context.Background()
	fill(t, rdb, 3000)
	c, err := redisson.New(rdb)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Lock("orders:1").Lock(ctx, rlock.WithLease(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if err := rdb.HSet(ctx, "java:1", "0b0b0b0b-0000-4000-8000-000000000001:1", 1).Err(); err != nil {
		t.Fatal(err)
	}
	if err := rdb.RPush(ctx, keys.FairLockQueue("fair:1"), "0b0b0b0b-0000-4000-8000-000000000002:1").Err(); err != nil {
		t.Fatal(err)
	}
	if err := rdb.HSet(ctx, "map:1", "a", "b").Err(); err != nil {
		t.Fatal(err)
	}
	if err := rdb.Set(ctx, "keep:me", "v", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if err := rdb.HSet(ctx, "waited:1", "0b0b0b0b-0000-4000-8000-000000000003:1", 1).Err(); err != nil {
		t.Fatal(err)
	}
	sub := rdb.Subscribe(ctx, keys.LockChannel("waited:1"))
	defer sub.Close()
	if _, err := sub.Receive(ctx); err != nil {
		t.Fatal(err)
	}
	for _, o := range []Options{
		{Pattern: "*", MaxKeys: 10000, ScanCount: 100},
		{Pattern: "*", MaxKeys: 100, ScanCount: 100, Pins: []string{"keep:*"}},
	} {
		t.Run(fmt.Sprintf("max-keys %d", o.MaxKeys), func(t *testing.T) { matchList(t, rdb, o) })
	}
}

// matchList compares a scanner's listings with List's.
func matchList(t *testing.T, rdb *redis.Client, o Options) {
	ctx := context.Background()
	sc := NewScanner(rdb, o)
	first := next(t, sc)
	want, err := List(ctx, rdb, o)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"orders:1", "fair:1", "keep:me", "waited:1"} {
		if find(want, n) == nil {
			t.Errorf("List cut %s", n)
		}
	}
	compare := func(what string, got *Result) {
		t.Helper()
		g, w := steady(t, got), steady(t, want)
		if want.Truncated {
			// Which 100 keys come first is up to SCAN, and two scans
			// can differ (a rehash under way): past the cut, compare
			// what matters (every listed object above), and the objects
			// both list.
			for n := range g {
				if _, ok := w[n]; !ok && !strings.HasPrefix(n, "filler:") {
					t.Errorf("%s: the scanner lists %s, List does not", what, n)
				}
			}
			for n := range w {
				if _, ok := g[n]; !ok {
					if !strings.HasPrefix(n, "filler:") {
						t.Errorf("%s: List lists %s, the scanner does not", what, n)
					}
					delete(w, n)
				}
			}
			if len(got.Objects) < 100 {
				t.Errorf("%s: %d objects past a cut at 100 keys", what, len(got.Objects))
			}
		} else if len(g) != len(w) {
			var extra []string
			for n := range g {
				if _, ok := w[n]; !ok {
					extra = append(extra, n)
				}
			}
			for n := range w {
				if _, ok := g[n]; !ok {
					extra = append(extra, "-"+n)
				}
			}
			t.Errorf("%s: %d objects, List %d; only in the scanner's (- in List's): %q", what, len(g), len(w), extra)
		}
		for n, wo := range w {
			if o := find(want, n); o != nil && len(o.Keys) == 0 {
				// List lists no key of an object it read by name past the
				// cut; the scanner, having read the key, lists it.
				if k := find(got, n); k != nil && slices.Equal(k.Keys, []string{n}) {
					k.Keys = nil
					o.Keys = nil
					g[n], wo = steady(t, &Result{Objects: []Object{*k}})[n], steady(t, &Result{Objects: []Object{*o}})[n]
				}
			}
			if g[n] != wo {
				t.Errorf("%s: %s\n got %s\nwant %s", what, n, g[n], wo)
			}
		}
		// Past the cut, List counts the keys it read by name (orders:1 in
		// its record, waited:1 waited on) as left out and not read; the
		// scanner as read.
		byName := 0
		if want.Truncated {
			byName = 2
		}
		if got.MatchedKeys != want.MatchedKeys || got.LeftOut != want.LeftOut-byName || got.ScannedKeys != want.ScannedKeys+byName ||
			got.ScannedKeys+got.LeftOut != got.MatchedKeys {
			t.Errorf("%s: matched %d, left out %d, read %d; List %d, %d, %d", what, got.MatchedKeys, got.LeftOut, got.ScannedKeys,
				want.MatchedKeys, want.LeftOut, want.ScannedKeys)
		}
	}
	compare("first call", first)
	compare("after a pass", untilPasses(t, sc, 1, nil))
}

// TestScannerCold: a key added, changed in kind, deleted, or a lock taken
// by a client without a record and without waiters shows within one whole
// pass that starts after the change, and once that pass is over a deleted
// key is never listed again.
func TestScannerCold(t *testing.T) {
	t.Parallel()
	s := redistest.StartServer(t)
	rdb := redistest.Client(t, s)
	ctx := context.Background()
	fill(t, rdb, 4000)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(rdb.Set(ctx, "cold:kind", "v", 0).Err())
	must(rdb.Set(ctx, "cold:gone", "v", 0).Err())
	must(rdb.HSet(ctx, "cold:lock", "x", "y").Err()) // a map, until a holder writes it
	const reentrant = "0b0b0b0b-0000-4000-8000-000000000008:1"
	must(rdb.HSet(ctx, "cold:reentry", reentrant, 1).Err())
	sc := NewScanner(rdb, Options{Pattern: "*", MaxKeys: 10000, ScanCount: 100})
	first := next(t, sc)
	if n := sc.nodes[s.Addr()]; n == nil || n.last < int64(10*sc.passTicks()) {
		t.Fatalf("a pass should take several calls a tick: %+v", n)
	}
	if o := find(first, "cold:lock"); o == nil || o.Kind != "map" {
		t.Fatalf("cold:lock before: %+v", o)
	}
	const java = "0b0b0b0b-0000-4000-8000-000000000009:1"
	for _, tc := range []struct {
		name   string
		change func() error
		ok     func(*Object) bool
	}{
		{"cold:new", func() error { return rdb.Set(ctx, "cold:new", "v", 0).Err() },
			func(o *Object) bool { return o != nil && o.Kind == "bucket" }},
		{"cold:kind", func() error {
			if err := rdb.Del(ctx, "cold:kind").Err(); err != nil {
				return err
			}
			return rdb.HSet(ctx, "cold:kind", java, 1).Err()
		}, func(o *Object) bool { return o != nil && o.Kind == "lock" && o.Held }},
		{"cold:gone", func() error { return rdb.Del(ctx, "cold:gone").Err() },
			func(o *Object) bool { return o == nil }},
		{"cold:lock", func() error {
			if err := rdb.Del(ctx, "cold:lock").Err(); err != nil {
				return err
			}
			return rdb.HSet(ctx, "cold:lock", java, 1).Err()
		}, func(o *Object) bool { return o != nil && o.Held && len(o.Holders) == 1 && o.Holders[0].Field == java }},
		// Read unchanged by passes before (skipped), then re-entered.
		{"cold:reentry", func() error {
			if sc.skipped == 0 {
				return fmt.Errorf("no unchanged lock was left unread in %d passes", sc.passes)
			}
			return rdb.HIncrBy(ctx, "cold:reentry", reentrant, 1).Err()
		}, func(o *Object) bool { return o != nil && o.Held && len(o.Holders) == 1 && o.Holders[0].Holds == 2 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			must(tc.change())
			r := untilPasses(t, sc, 1, nil)
			if o := find(r, tc.name); !tc.ok(o) {
				t.Fatalf("after a whole pass: %+v", o)
			}
			// It stays so: no stale reading comes back.
			untilPasses(t, sc, 0, func(r *Result) {
				if o := find(r, tc.name); !tc.ok(o) {
					t.Fatalf("later: %+v", o)
				}
			})
		})
	}
}

// TestScannerHot: a lock taken by a client that keeps a record, or one a
// connection waits on, shows at the next call after the record lists it
// (or the wait began), whatever the rotating pass is at; its release
// shows at the next call too.
func TestScannerHot(t *testing.T) {
	t.Parallel()
	s := redistest.StartServer(t)
	rdb := redistest.Client(t, s)
	ctx := context.Background()
	fill(t, rdb, 4000)
	c, err := redisson.New(rdb)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	sc := NewScanner(rdb, Options{Pattern: "*", MaxKeys: 10000, ScanCount: 100})
	next(t, sc)
	next(t, sc) // the rotating pass under way

	h, err := c.Lock("hot:rec").Lock(ctx, rlock.WithLease(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	redistest.Eventually(t, 10*time.Second, "the record lists hot:rec", func() bool {
		return strings.Contains(rdb.Get(ctx, registry.KeyPrefix+c.ID()).Val(), `"hot:rec"`)
	})
	if o := find(next(t, sc), "hot:rec"); o == nil || !o.Held || o.Holders[0].Client == nil {
		t.Fatalf("hot:rec at the next call: %+v", o)
	}
	// A lock of a client without a record, waited on by a connection.
	const java = "0b0b0b0b-0000-4000-8000-000000000009:1"
	if err := rdb.HSet(ctx, "hot:waited", java, 1).Err(); err != nil {
		t.Fatal(err)
	}
	sub := rdb.Subscribe(ctx, keys.LockChannel("hot:waited"))
	defer sub.Close()
	if _, err := sub.Receive(ctx); err != nil {
		t.Fatal(err)
	}
	if o := find(next(t, sc), "hot:waited"); o == nil || !o.Held || o.WaiterConnections != 1 {
		t.Fatalf("hot:waited at the next call: %+v", o)
	}
	if err := h.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	redistest.Eventually(t, 10*time.Second, "the record drops hot:rec", func() bool {
		return !strings.Contains(rdb.Get(ctx, registry.KeyPrefix+c.ID()).Val(), `"hot:rec"`)
	})
	if err := sub.Close(); err != nil {
		t.Fatal(err)
	}
	redistest.Eventually(t, 10*time.Second, "the waiter gone", func() bool {
		return redistest.NumSub(t, rdb, keys.LockChannel("hot:waited")) == 0
	})
	r := next(t, sc)
	if o := find(r, "hot:rec"); o != nil {
		t.Errorf("hot:rec after its release: %+v", o)
	}
	if o := find(r, "hot:waited"); o == nil || o.WaiterConnections != 0 {
		t.Errorf("hot:waited after its waiter left: %+v", o)
	}
}

// TestScannerCutLater: past --max-keys, what appears after the first
// call is kept as List keeps it: a waited-on lock at the next call, a
// pinned key and a fair lock's queue within a pass, and a plain new key is
// left out and counted so.
func TestScannerCutLater(t *testing.T) {
	t.Parallel()
	s := redistest.StartServer(t)
	rdb := redistest.Client(t, s)
	ctx := context.Background()
	fill(t, rdb, 3000)
	sc := NewScanner(rdb, Options{Pattern: "*", MaxKeys: 50, ScanCount: 100, Pins: []string{"pin:*"}})
	first := next(t, sc)
	if !first.Truncated || len(first.Objects) != 50 {
		t.Fatalf("first call: %d objects, truncated %v", len(first.Objects), first.Truncated)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(rdb.HSet(ctx, "late:lock", "0b0b0b0b-0000-4000-8000-000000000005:1", 1).Err())
	sub := rdb.Subscribe(ctx, keys.LockChannel("late:lock"))
	defer sub.Close()
	if _, err := sub.Receive(ctx); err != nil {
		t.Fatal(err)
	}
	if o := find(next(t, sc), "late:lock"); o == nil || !o.Held || o.WaiterConnections != 1 {
		t.Fatalf("late:lock at the next call: %+v", o)
	}
	must(rdb.Set(ctx, "pin:new", "v", 0).Err())
	must(rdb.RPush(ctx, keys.FairLockQueue("late:fair"), "0b0b0b0b-0000-4000-8000-000000000006:1").Err())
	must(rdb.Set(ctx, "late:plain", "v", 0).Err())
	r := untilPasses(t, sc, 1, nil)
	if o := find(r, "pin:new"); o == nil || o.Kind != "bucket" {
		t.Errorf("pin:new after a pass: %+v", o)
	}
	if o := find(r, "late:fair"); o == nil || o.Kind != "fair lock" || o.Queue != 1 {
		t.Errorf("late:fair after a pass: %+v", o)
	}
	if o := find(r, "late:plain"); o != nil {
		t.Errorf("late:plain listed past the cut: %+v", o)
	}
	// 3000 fillers and late:plain left out, but the 50 read first.
	if r.MatchedKeys != 3004 || r.LeftOut != 3004-r.ScannedKeys || r.ScannedKeys != 53 {
		t.Errorf("after a pass: matched %d, read %d, left out %d", r.MatchedKeys, r.ScannedKeys, r.LeftOut)
	}
}
