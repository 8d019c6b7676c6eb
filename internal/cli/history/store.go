package history

import (
	"cmp"
	"slices"
	"strings"

	"github.com/goredisson/redisson/internal/cli/classify"
	"github.com/goredisson/redisson/internal/cli/ls"
)

// Record adds one scan's objects at atMs. An object not yet tracked is
// taken on while the store has room; when it is full, only an object
// that is held, waited on, queued or pinned is, in place of the tracked
// object that has been idle longest, and never of one active in this scan
// or the one before: the scan's order would otherwise let each newcomer
// push out an object still busy, and that one the next, losing history.
// Objects no scan listed for a Window are dropped.
func (st *Store) Record(objs []ls.Object, atMs int64) {
	st.mu.Lock()
	defer st.mu.Unlock()
	var victims []string
	built := false
	for i := range objs {
		o := &objs[i]
		x := FromObject(o, atMs)
		act := x.active() || st.pinned != nil && st.pinned(o.Name)
		s := st.series[o.Name]
		if s == nil {
			if len(st.series) >= st.maxObjects {
				if !act {
					continue
				}
				if !built {
					victims, built = st.byIdleness(), true
				}
				if victims = st.evictOne(victims); victims == nil {
					continue
				}
			}
			s = &Series{lastActive: -1}
			st.series[o.Name] = s
		}
		s.Kind = o.Kind
		s.add(x)
		s.lastSeen = atMs
		if act {
			s.lastActive = atMs
		}
	}
	st.prevAt = atMs
	cut := atMs - Window.Milliseconds()
	for name, s := range st.series {
		if s.lastSeen < cut {
			delete(st.series, name)
		}
	}
}

// byIdleness names the tracked objects, idle longest first.
func (st *Store) byIdleness() []string {
	names := make([]string, 0, len(st.series))
	for name := range st.series {
		names = append(names, name)
	}
	slices.SortFunc(names, func(a, b string) int {
		sa, sb := st.series[a], st.series[b]
		if sa.lastActive != sb.lastActive {
			return cmp.Compare(sa.lastActive, sb.lastActive)
		}
		if sa.lastSeen != sb.lastSeen {
			return cmp.Compare(sa.lastSeen, sb.lastSeen)
		}
		return strings.Compare(a, b)
	})
	return names
}

// evictOne drops the first of victims active in neither this scan nor
// the one before, and returns the victims left after it; nil when none
// could go.
func (st *Store) evictOne(victims []string) []string {
	for i, v := range victims {
		if s := st.series[v]; s != nil && s.lastActive < st.prevAt {
			delete(st.series, v)
			return victims[i+1:]
		}
	}
	return nil
}

// Line is one chart line of an object's history: a value per point,
// null where the figure was absent.
type Line struct {
	Key    string   `json:"key"`
	Label  string   `json:"label"`
	Unit   string   `json:"unit"`
	Values []*int64 `json:"values"`
}

// View is an object's history as the dashboard's page draws it.
type View struct {
	Name     string `json:"name"`
	Kind     string `json:"kind"`
	NowMs    int64  `json:"now_ms"`
	WindowMs int64  `json:"window_ms"`
	// Tracked is false when the store has no series of the object.
	Tracked bool `json:"tracked"`
	// T are the points' times (Unix ms), oldest first.
	T     []int64 `json:"t"`
	Lines []Line  `json:"lines"`
}

// Object is the history of one object over the last Window before nowMs.
func (st *Store) Object(name string, nowMs int64) View {
	v := View{Name: name, NowMs: nowMs, WindowMs: Window.Milliseconds(), T: []int64{}, Lines: []Line{}}
	st.mu.Lock()
	s := st.series[name]
	var pts []Sample
	if s != nil {
		v.Kind, v.Tracked = s.Kind, true
		pts = s.Samples(nowMs - Window.Milliseconds())
	}
	st.mu.Unlock()
	for _, p := range pts {
		v.T = append(v.T, p.AtMs)
	}
	v.Lines = lines(v.Kind, pts)
	return v
}

// lines are the figures that apply to the kind, or that some point has.
func lines(kind string, pts []Sample) []Line {
	type fig struct {
		key, label, unit string
		get              func(Sample) int64
		always           bool
	}
	lock := kind == classify.Lock || kind == classify.FairLock || kind == classify.RWLock || kind == classify.Group
	valueLabel := map[string]string{classify.Semaphore: "permits available", classify.Expirable: "permits available",
		classify.Latch: "count"}[kind]
	if valueLabel == "" {
		valueLabel = "value"
	}
	figs := []fig{
		{"holders", "holders", "", func(s Sample) int64 { return int64(s.Holders) }, lock},
		{"waiters", "waiters", "", func(s Sample) int64 { return int64(s.Waiters) }, lock || valueLabel != "value"},
		{"queue", "queue length", "", func(s Sample) int64 { return int64(s.Queue) }, kind == classify.FairLock},
		{"hold_age", "oldest hold", "ms", func(s Sample) int64 { return s.HoldAgeMs }, false},
		{"value", valueLabel, "", func(s Sample) int64 { return s.Value }, false},
		{"acquired", "permits acquired", "", func(s Sample) int64 { return s.Acquired }, false},
	}
	out := []Line{}
	for _, f := range figs {
		l := Line{Key: f.key, Label: f.label, Unit: f.unit, Values: make([]*int64, len(pts))}
		has := f.always
		for i, p := range pts {
			n := f.get(p)
			if n < 0 {
				continue
			}
			l.Values[i] = &n
			// A count that stays zero says nothing unless the kind has it.
			has = has || n > 0 || f.key == "hold_age" || f.key == "value" || f.key == "acquired"
		}
		if has {
			out = append(out, l)
		}
	}
	return out
}

// Spark is one overview row's sparkline: holders plus waiters per point.
type Spark struct {
	T []int64 `json:"t"`
	V []int32 `json:"v"`
}

// Sparks are the sparklines of the named objects over span before nowMs;
// an object not tracked has none.
func (st *Store) Sparks(names []string, nowMs, spanMs int64) map[string]Spark {
	out := make(map[string]Spark, len(names))
	st.mu.Lock()
	defer st.mu.Unlock()
	for _, name := range names {
		s := st.series[name]
		if s == nil {
			continue
		}
		pts := s.Samples(nowMs - spanMs)
		sp := Spark{T: make([]int64, len(pts)), V: make([]int32, len(pts))}
		for i, p := range pts {
			sp.T[i], sp.V[i] = p.AtMs, p.Holders+p.Waiters
		}
		out[name] = sp
	}
	return out
}
