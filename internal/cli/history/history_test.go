package history

import (
	"fmt"
	"runtime"
	"testing"
	"unsafe"

	"github.com/goredisson/redisson/internal/cli/classify"
	"github.com/goredisson/redisson/internal/cli/ls"
	"github.com/goredisson/redisson/internal/cli/objinfo"
)

func ptr(n int64) *int64 { return &n }

// lockObj is a lock held by holders (the first for heldMs) with waiters.
func lockObj(name string, holders, waiters int, heldMs int64) ls.Object {
	o := ls.Object{Name: name, Kind: classify.Lock, Waiters: int64(waiters), Holders: []objinfo.Holder{}}
	for i := range holders {
		h := objinfo.Holder{Field: fmt.Sprint("c:", i), Holds: 1}
		if i == 0 {
			h.HeldForMs = ptr(heldMs)
		}
		o.Holders = append(o.Holders, h)
	}
	o.Held = holders > 0
	return o
}

func TestSampleSize(t *testing.T) {
	if got := unsafe.Sizeof(Sample{}); got != SampleBytes {
		t.Fatalf("a sample is %d bytes, SampleBytes says %d", got, SampleBytes)
	}
}

func TestFromObject(t *testing.T) {
	sem := ls.Object{Name: "s", Kind: classify.Expirable, Value: ptr(3), Acquired: ptr(2), Waiting: 4, WaiterConnections: 1, Waiters: 2}
	for _, c := range []struct {
		name string
		o    ls.Object
		want Sample
	}{
		{"held lock", lockObj("a", 1, 2, 1500), Sample{AtMs: 7, Holders: 1, Waiters: 2, HoldAgeMs: 1500, Value: -1, Acquired: -1}},
		{"free lock", lockObj("a", 0, 0, 0), Sample{AtMs: 7, HoldAgeMs: -1, Value: -1, Acquired: -1}},
		{"fair queue", ls.Object{Kind: classify.FairLock, Queue: 3, Waiters: 3}, Sample{AtMs: 7, Queue: 3, Waiters: 3, HoldAgeMs: -1, Value: -1, Acquired: -1}},
		{"recorded waiters win", sem, Sample{AtMs: 7, Waiters: 5, HoldAgeMs: -1, Value: 3, Acquired: 2}},
		{"read-write, oldest hold", func() ls.Object {
			o := lockObj("rw", 2, 0, 100)
			o.Holders[1].HeldForMs = ptr(900)
			return o
		}(), Sample{AtMs: 7, Holders: 2, HoldAgeMs: 900, Value: -1, Acquired: -1}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := FromObject(&c.o, 7); got != c.want {
				t.Fatalf("got %+v, want %+v", got, c.want)
			}
		})
	}
}

// TestDownsampling: past FineSlots samples the older ones are merged into
// CoarseStep buckets keeping the peaks, and nothing older than Window is
// returned.
func TestDownsampling(t *testing.T) {
	st := NewStore(10, nil)
	step := int64(1000)
	n := int64(FineSlots + 60)
	for i := range n {
		waiters := 0
		if i == 3 {
			waiters = 9 // a peak inside the first bucket
		}
		st.Record([]ls.Object{lockObj("a", 1, waiters, i*step)}, i*step)
	}
	v := st.Object("a", (n-1)*step)
	if !v.Tracked || v.Kind != classify.Lock {
		t.Fatalf("not tracked: %+v", v)
	}
	// 60 samples left the fine ring: 6 buckets of 10 s.
	if want := FineSlots + 6; len(v.T) != want {
		t.Fatalf("%d points, want %d", len(v.T), want)
	}
	for i := 1; i < len(v.T); i++ {
		if v.T[i] <= v.T[i-1] {
			t.Fatalf("times not increasing at %d: %v", i, v.T)
		}
	}
	line := func(key string) []*int64 {
		for _, l := range v.Lines {
			if l.Key == key {
				return l.Values
			}
		}
		t.Fatalf("no line %q in %+v", key, v.Lines)
		return nil
	}
	if w := line("waiters"); *w[0] != 9 || *w[1] != 0 {
		t.Errorf("the first bucket's waiters %d, the second's %d: want the peak 9, then 0", *w[0], *w[1])
	}
	if h := line("hold_age"); *h[0] != 9*step || *h[len(h)-1] != (n-1)*step {
		t.Errorf("hold age: first %d (want the bucket's longest, %d), last %d", *h[0], 9*step, *h[len(h)-1])
	}
	// Fifteen minutes later only what is newer than the window is left.
	late := (n-1)*step + Window.Milliseconds() - 5*step
	// The window then starts 5 s before the last sample: 6 samples.
	if got := len(st.Object("a", late).T); got != 6 {
		t.Errorf("%d points inside the window later, want 6", got)
	}
}

// TestEviction: a full store keeps the active objects and gives up the
// idle ones, and drops what no scan listed for a Window.
func TestEviction(t *testing.T) {
	pinned := func(name string) bool { return name == "pinned" }
	st := NewStore(3, pinned)
	st.Record([]ls.Object{lockObj("idle1", 0, 0, 0), lockObj("idle2", 0, 0, 0), lockObj("held", 1, 0, 0)}, 1000)
	st.Record([]ls.Object{lockObj("idle1", 0, 0, 0), lockObj("idle2", 0, 0, 0), lockObj("held", 1, 0, 0),
		lockObj("idle3", 0, 0, 0), lockObj("waited", 0, 2, 0), lockObj("pinned", 0, 0, 0)}, 2000)
	for _, c := range []struct {
		name    string
		tracked bool
	}{{"held", true}, {"waited", true}, {"pinned", true}, {"idle1", false}, {"idle2", false}, {"idle3", false}} {
		if got := st.Object(c.name, 2000).Tracked; got != c.tracked {
			t.Errorf("%s tracked %v, want %v", c.name, got, c.tracked)
		}
	}
	// More active objects than room: the bound holds. Those active in
	// the scan before keep their place for a scan; then busy0..2 win,
	// and keep their place (and their history) from then on.
	var busy []ls.Object
	for i := range 10 {
		busy = append(busy, lockObj(fmt.Sprint("busy", i), 1, 0, 0))
	}
	for _, at := range []int64{3000, 4000, 5000, 6000} {
		st.Record(busy, at)
		if st.Len() != 3 {
			t.Fatalf("%d tracked, bound 3", st.Len())
		}
	}
	for _, name := range []string{"busy0", "busy1", "busy2"} {
		if v := st.Object(name, 6000); len(v.T) != 3 {
			t.Errorf("%s: %d points, want 3 (scans 4000, 5000, 6000)", name, len(v.T))
		}
	}
	// A newcomer first in the scan's order does not push out an object
	// still busy.
	st.Record(append([]ls.Object{lockObj("aaa", 1, 0, 0)}, busy...), 7000)
	if st.Object("aaa", 7000).Tracked {
		t.Error("aaa took the place of a busy object")
	}
	for _, name := range []string{"busy0", "busy1", "busy2"} {
		if v := st.Object(name, 7000); len(v.T) != 4 {
			t.Errorf("%s: %d points after a newcomer, want 4", name, len(v.T))
		}
	}
	st.Record(nil, 7000+Window.Milliseconds()+1)
	if st.Len() != 0 {
		t.Errorf("%d tracked after a Window without them", st.Len())
	}
}

// TestMemoryBound: many scans of many objects, all changing, never track
// more than the bound, nor keep more samples per object than the slots,
// and the heap stays within the documented figure.
func TestMemoryBound(t *testing.T) {
	const objects, scans, bound = 2000, 300, 500
	st := NewStore(bound, nil)
	objs := make([]ls.Object, objects)
	names := make([]string, objects)
	for i := range names {
		names[i] = fmt.Sprintf("obj:%05d", i)
	}
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for scan := range scans {
		for i := range objs {
			// A changing third of them is held each scan.
			objs[i] = lockObj(names[i], (i+scan)%3/2, (i+scan)%5, int64(scan)*1000)
		}
		st.Record(objs, int64(scan)*1000)
		if st.Len() > bound {
			t.Fatalf("scan %d: %d objects tracked, bound %d", scan, st.Len(), bound)
		}
	}
	st.mu.Lock()
	for name, s := range st.series {
		if s.n > FineSlots || s.cn > CoarseSlots {
			t.Fatalf("%s keeps %d+%d samples, slots %d+%d", name, s.n, s.cn, FineSlots, CoarseSlots)
		}
	}
	st.mu.Unlock()
	objs, names = nil, nil
	runtime.GC()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	// Each tracked object: its slots, its Series header, its name and map entry.
	limit := uint64(bound) * uint64((FineSlots+CoarseSlots)*SampleBytes+1024)
	grown := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	t.Logf("%d objects tracked; heap grew %d KiB (bound %d KiB)", st.Len(), grown/1024, limit/1024)
	if grown > int64(limit) {
		t.Errorf("heap grew %d bytes for %d objects, over the bound %d", grown, st.Len(), limit)
	}
	runtime.KeepAlive(st)
}

func TestSparks(t *testing.T) {
	st := NewStore(10, nil)
	for i := range int64(5) {
		st.Record([]ls.Object{lockObj("a", 1, int(i), 0), lockObj("b", 0, 0, 0)}, i*1000)
	}
	sp := st.Sparks([]string{"a", "b", "missing"}, 4000, 2500)
	if _, ok := sp["missing"]; ok || len(sp) != 2 {
		t.Fatalf("sparks of %v", sp)
	}
	if got := fmt.Sprint(sp["a"].T, sp["a"].V); got != "[2000 3000 4000] [3 4 5]" {
		t.Errorf("a's spark %s", got)
	}
}

func TestLinesByKind(t *testing.T) {
	for _, c := range []struct {
		o    ls.Object
		want string
	}{
		{lockObj("l", 1, 0, 5), "[holders waiters hold_age]"},
		{ls.Object{Kind: classify.FairLock}, "[holders waiters queue]"},
		{ls.Object{Kind: classify.Semaphore, Value: ptr(2)}, "[waiters value]"},
		{ls.Object{Kind: classify.Expirable, Value: ptr(2), Acquired: ptr(1)}, "[waiters value acquired]"},
		{ls.Object{Kind: classify.Latch, Value: ptr(1)}, "[waiters value]"},
		{ls.Object{Kind: classify.Bucket}, "[]"},
	} {
		t.Run(c.o.Kind, func(t *testing.T) {
			st := NewStore(1, nil)
			c.o.Name = "x"
			st.Record([]ls.Object{c.o}, 1)
			var keys []string
			for _, l := range st.Object("x", 1).Lines {
				keys = append(keys, l.Key)
			}
			if got := fmt.Sprint(keys); got != c.want && !(c.want == "[]" && keys == nil) {
				t.Errorf("lines %s, want %s", got, c.want)
			}
		})
	}
}
