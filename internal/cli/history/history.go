// Package history keeps what the dashboard scanned over the last minutes:
// per object, a small time series of its holders, waiters, queue, oldest
// hold and permits, in bounded memory.
//
// Memory is bounded twice: a Store tracks at most MaxObjects objects, and
// each object keeps at most FineSlots samples at the scan's own resolution
// plus CoarseSlots downsampled buckets of CoarseStep, so never more than
// MaxObjects × (FineSlots + CoarseSlots) samples of SampleBytes each.
package history

import (
	"math"
	"sync"
	"time"

	"github.com/goredisson/redisson/internal/cli/ls"
)

// Bounds of one object's series and of a store.
const (
	// Window is how far back a series reaches.
	Window = 15 * time.Minute
	// FineSlots samples are kept as scanned (the last 2 minutes at the
	// default interval of a second).
	FineSlots = 120
	// CoarseStep is the width of one downsampled bucket: older samples
	// are merged into buckets of this width.
	CoarseStep = 10 * time.Second
	// CoarseSlots buckets cover the whole Window.
	CoarseSlots = int(Window / CoarseStep)
	// DefaultMaxObjects is how many objects a store tracks unless told.
	DefaultMaxObjects = 1000
	// SampleBytes is the size of one stored sample.
	SampleBytes = 48
)

// Sample is one object's figures at one scan. Counts that do not apply
// to its kind are zero; HoldAgeMs, Value and Acquired are -1 when absent.
type Sample struct {
	AtMs      int64
	HoldAgeMs int64
	Value     int64
	Acquired  int64
	Holders   int32
	Waiters   int32
	Queue     int32
}

// FromObject is the sample of one listed object at atMs.
func FromObject(o *ls.Object, atMs int64) Sample {
	s := Sample{AtMs: atMs, HoldAgeMs: -1, Value: -1, Acquired: -1,
		Holders: clamp32(int64(len(o.Holders))), Queue: clamp32(o.Queue)}
	w := o.Waiting + o.WaiterConnections
	if w == 0 {
		w = o.Waiters
	}
	s.Waiters = clamp32(w)
	for _, h := range o.Holders {
		if h.HeldForMs != nil && *h.HeldForMs > s.HoldAgeMs {
			s.HoldAgeMs = *h.HeldForMs
		}
	}
	if o.Value != nil {
		s.Value = *o.Value
	}
	if o.Acquired != nil {
		s.Acquired = *o.Acquired
	}
	return s
}

func clamp32(n int64) int32 {
	return int32(min(max(n, 0), math.MaxInt32))
}

// active reports an object that matters now: held, waited on or queued.
func (s Sample) active() bool { return s.Holders > 0 || s.Waiters > 0 || s.Queue > 0 }

// merge folds b into a downsampled bucket: the bucket keeps the peaks
// (most holders, waiters, queued, acquired, the longest hold) and the
// fewest permits available (or the lowest count), the moments that show
// contention.
func (a *Sample) merge(b Sample) {
	a.Holders = max(a.Holders, b.Holders)
	a.Waiters = max(a.Waiters, b.Waiters)
	a.Queue = max(a.Queue, b.Queue)
	a.HoldAgeMs = max(a.HoldAgeMs, b.HoldAgeMs)
	a.Acquired = max(a.Acquired, b.Acquired)
	switch {
	case a.Value < 0:
		a.Value = b.Value
	case b.Value >= 0:
		a.Value = min(a.Value, b.Value)
	}
}

// Series is one object's samples: the newest as scanned in a ring, the
// older ones downsampled into buckets of CoarseStep.
type Series struct {
	Kind string
	fine [FineSlots]Sample
	// next is where the next fine sample goes; n how many are kept.
	next, n int
	coarse  [CoarseSlots]Sample
	cnext   int
	cn      int
	// lastActive is when the object was last held, waited on, queued
	// or pinned (-1: never); lastSeen when a scan last listed it.
	lastActive, lastSeen int64
}

func (s *Series) add(x Sample) {
	if s.n == FineSlots {
		s.toCoarse(s.fine[s.next])
	} else {
		s.n++
	}
	s.fine[s.next] = x
	s.next = (s.next + 1) % FineSlots
}

// toCoarse merges a sample leaving the fine ring into its bucket.
func (s *Series) toCoarse(x Sample) {
	step := CoarseStep.Milliseconds()
	bucket := x.AtMs - x.AtMs%step
	if s.cn > 0 {
		last := &s.coarse[(s.cnext+CoarseSlots-1)%CoarseSlots]
		if last.AtMs == bucket {
			last.merge(x)
			return
		}
	}
	x.AtMs = bucket
	s.coarse[s.cnext] = x
	s.cnext = (s.cnext + 1) % CoarseSlots
	s.cn = min(s.cn+1, CoarseSlots)
}

// Samples are the series' samples since sinceMs, oldest first.
func (s *Series) Samples(sinceMs int64) []Sample {
	out := make([]Sample, 0, s.cn+s.n)
	for i := range s.cn {
		x := s.coarse[(s.cnext-s.cn+i+CoarseSlots)%CoarseSlots]
		if x.AtMs >= sinceMs {
			out = append(out, x)
		}
	}
	for i := range s.n {
		x := s.fine[(s.next-s.n+i+FineSlots)%FineSlots]
		if x.AtMs >= sinceMs {
			out = append(out, x)
		}
	}
	return out
}

// Store is the series of the objects a dashboard tracks.
type Store struct {
	maxObjects int
	// pinned names objects tracked as if active (the dashboard's --pin).
	pinned func(name string) bool

	mu     sync.Mutex
	series map[string]*Series
	// prevAt is when the scan before the current one was read.
	prevAt int64
}

// NewStore tracks at most maxObjects objects (DefaultMaxObjects when
// < 1); pinned, when not nil, names objects always worth tracking.
func NewStore(maxObjects int, pinned func(name string) bool) *Store {
	if maxObjects < 1 {
		maxObjects = DefaultMaxObjects
	}
	return &Store{maxObjects: maxObjects, pinned: pinned, series: map[string]*Series{}}
}

// Len is how many objects the store tracks.
func (st *Store) Len() int {
	st.mu.Lock()
	defer st.mu.Unlock()
	return len(st.series)
}

// MaxObjects is the store's bound on tracked objects.
func (st *Store) MaxObjects() int { return st.maxObjects }
