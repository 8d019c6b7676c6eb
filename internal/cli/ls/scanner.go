package ls

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson/internal/cli/classify"
	"github.com/goredisson/redisson/internal/cli/objinfo"
	"github.com/goredisson/redisson/internal/registry"
)

// DefaultPassTicks is how many calls of Scanner.Next one full pass of the
// rotating SCAN is spread over at least.
const DefaultPassTicks = 10

// DefaultSliceObjects is about how many known keys one call reads again
// at most besides the hot objects: a pass over more keys is spread over
// more calls.
const DefaultSliceObjects = 1000

// Scanner lists as List does, for a caller that lists again and again
// (the dashboard, ls --watch): it keeps what it classified and, each call,
// reads again only what can have changed in a way it can see cheaply, and
// a slice of the rest.
//
// Every call reads again the hot objects: those waited on (their channels
// in PUBSUB CHANNELS), those the clients' records list as held, those
// with a holder whose client keeps a record, a fair-lock queue, waiters or
// acquired expirable permits, the pinned ones, those whose TTL has passed,
// and those that were hot the call before (so that an object seen leaving
// the hot set is read once more). The other keys are read as a rotating
// SCAN cursor reaches them: one full pass of the key space is spread over
// PassTicks calls, and the first call makes a whole pass at once. At the
// end of a pass, the keys the pass did not return are checked and those
// gone are dropped (SCAN returns every key that exists for the whole
// pass).
//
// So a change shows at the next call when its object is hot, or becomes
// hot by the change (a holder with a record, a waiter); any other change
// (a lock taken by a client without a record and without waiters, a value
// written, a key added or deleted) shows within one full pass. A Scanner
// is not safe for concurrent use.
type Scanner struct {
	rdb redis.UniversalClient
	o   Options
	// PassTicks is how many calls one full pass is spread over at least;
	// 1: every call a full pass. SliceObjects bounds the known keys a call
	// reads again: a pass of more than PassTicks × SliceObjects known keys
	// takes known/SliceObjects calls.
	PassTicks, SliceObjects int
	// Stale: a call longer than this after the previous one starts over
	// with a full pass (what was kept is too old to serve); 0 never.
	Stale time.Duration

	last  time.Time
	nodes map[string]*nodeCursor
	owner map[string]string // key -> the object it belongs to
	// records are the clients' records the scan found: read, not listed.
	records map[string]bool
	objs    map[string]*entry
	hot     map[string]bool
	pass    passCount // the pass under way
	done    passCount // the last whole pass
	// seen are the keys the pass under way has returned and read.
	seen map[string]bool
	// passes counts the whole passes made; skipped the readings
	// skipUnchanged left out.
	passes, skipped int
	// sorted are the objs in name order; nil after a change of the set.
	sorted []*entry
	// readings counts the readings, to tell each object's apart.
	readings uint64
}

// entry is one object the scanner knows: its keys and its last reading.
type entry struct {
	keys     map[string]bool
	obj      *Object
	deadline int64 // when its TTL runs out (unix ms); -1 without one
	d        *classify.Names
	// fields are its hash's fields as its reading found them (see
	// skipUnchanged); "" for other types.
	fields string
}

// nodeCursor is the rotating SCAN of one server.
type nodeCursor struct {
	cursor uint64
	// count sums the COUNT hints of the pass under way's SCAN calls (about
	// the slots of the key space they went through), last the whole last
	// pass's: a call's share of a pass is last/ticks.
	count, last int64
	wrap        bool
}

// passCount counts one pass's keys as scanKeys counts a listing's.
type passCount struct {
	matched, leftOut, kept int
}

// NewScanner returns a scanner of rdb listing as o says.
func NewScanner(rdb redis.UniversalClient, o Options) *Scanner {
	s := &Scanner{rdb: rdb, o: o, PassTicks: DefaultPassTicks, SliceObjects: DefaultSliceObjects}
	s.reset()
	return s
}

func (s *Scanner) reset() {
	s.nodes, s.owner, s.objs, s.hot, s.seen = map[string]*nodeCursor{}, map[string]string{}, map[string]*entry{}, map[string]bool{}, map[string]bool{}
	s.records = map[string]bool{}
	s.pass, s.done = passCount{}, passCount{}
}

// Next reads what may have changed since the previous call and returns
// the listing, as List would return it (the same objects once a full pass
// has gone by without changes, durations apart).
func (s *Scanner) Next(ctx context.Context) (*Result, error) {
	if now := time.Now(); s.last.IsZero() || s.Stale > 0 && now.Sub(s.last) > s.Stale {
		s.reset()
	}
	res, err := s.next(ctx)
	if err != nil {
		// What was read may be half applied: start over next time.
		s.last = time.Time{}
		return nil, err
	}
	s.last = time.Now()
	return res, nil
}

func (s *Scanner) next(ctx context.Context) (*Result, error) {
	busy, recs, err := hotNames(ctx, s.rdb, s.o)
	if err != nil {
		return nil, err
	}
	isBusy := map[string]bool{}
	for _, n := range busy {
		isBusy[n] = true
	}
	slice, passEnd, err := s.scanSlice(ctx, isBusy)
	if err != nil {
		return nil, err
	}
	now := time.Now().UnixMilli()
	read, probe, must := s.plan(slice, busy, passEnd, now)
	keys := make([]string, 0, len(probe))
	for k := range probe {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	infos, err := keyInfos(ctx, s.rdb, keys)
	if err != nil {
		return nil, err
	}
	// As List, a name waited on or held without any key of its own is
	// listed only when the cut left keys out.
	s.apply(keys, infos, read, func(n string) bool { return isBusy[n] && s.pass.leftOut+s.done.leftOut > 0 })
	if err := s.skipUnchanged(ctx, read, must, infos); err != nil {
		return nil, err
	}
	if err := s.ownKeys(ctx, read, infos); err != nil {
		return nil, err
	}
	if err := s.classify(ctx, read, infos, busy, recs, now); err != nil {
		return nil, err
	}
	if passEnd {
		s.done, s.pass, s.seen = s.pass, passCount{}, map[string]bool{}
		s.passes++
	}
	return s.result(now), nil
}

// plan says what a call reads: the objects to classify (read), the keys
// whose TYPE and PTTL to read (probe), and the objects read whatever the
// rotating pass finds (must).
func (s *Scanner) plan(slice, busy []string, passEnd bool, now int64) (read, probe, must map[string]bool) {
	read, probe = map[string]bool{}, map[string]bool{}
	for _, k := range slice {
		probe[k] = true
	}
	for _, n := range busy {
		read[n] = true
	}
	for n := range s.hot {
		read[n] = true
	}
	for n, e := range s.objs {
		if e.deadline >= 0 && e.deadline <= now || s.o.pinned(n) {
			read[n] = true
		}
	}
	if passEnd {
		for k, n := range s.owner {
			if !s.seen[k] {
				probe[k], read[n] = true, true
			}
		}
		for k := range s.records {
			if !s.seen[k] {
				probe[k] = true
			}
		}
	}
	must = make(map[string]bool, len(read))
	for n := range read {
		must[n] = true
		probe[n] = true
		if e := s.objs[n]; e != nil {
			for k := range e.keys {
				probe[k] = true
			}
		} else {
			// Read by name before the scan reached it: its derived keys
			// that say it is held or waited on join it now.
			d := classify.Derive(n)
			for _, k := range []string{d.Queue, d.Timeout, d.Token, d.PESTimeout} {
				probe[k] = true
			}
		}
	}
	return read, probe, must
}

// ownKeys adds to infos the TYPE and PTTL of the objects of read found by
// derived keys only.
func (s *Scanner) ownKeys(ctx context.Context, read map[string]bool, infos map[string]objinfo.KeyInfo) error {
	var heads []string // objects found by derived keys: their own key
	for n := range read {
		if _, ok := infos[n]; !ok && s.objs[n] != nil {
			heads = append(heads, n)
		}
	}
	more, err := keyInfos(ctx, s.rdb, heads)
	if err != nil {
		return err
	}
	for k, v := range more {
		infos[k] = v
	}
	return nil
}

// scanSlice advances the rotating SCAN of every server (every master of a
// cluster) by its share of a pass, and reports whether the pass ended.
func (s *Scanner) scanSlice(ctx context.Context, busy map[string]bool) ([]string, bool, error) {
	var mu sync.Mutex
	var out []string
	visited := map[string]bool{}
	ticks := s.passTicks()
	scan := func(ctx context.Context, node redis.UniversalClient) error {
		addr := ""
		if c, ok := node.(*redis.Client); ok {
			addr = c.Options().Addr
		}
		mu.Lock()
		nc := s.nodes[addr]
		if nc == nil {
			nc = &nodeCursor{}
			s.nodes[addr] = nc
		}
		visited[addr] = true
		mu.Unlock()
		if nc.wrap {
			return nil
		}
		budget := int64(1) << 62 // the first pass: all of it
		if nc.last > 0 {
			budget = max(1, (nc.last+int64(ticks)-1)/int64(ticks))
		}
		for budget > 0 {
			count := min(s.o.ScanCount, budget)
			keys, next, err := node.Scan(ctx, nc.cursor, s.o.Pattern, count).Result()
			if err != nil {
				return fmt.Errorf("SCAN %s: %w", s.o.Pattern, err)
			}
			mu.Lock()
			out = append(out, keys...)
			mu.Unlock()
			nc.count += count
			budget -= count
			if nc.cursor = next; next == 0 {
				nc.wrap, nc.last, nc.count = true, nc.count, 0
				break
			}
		}
		return nil
	}
	if err := eachMaster(ctx, s.rdb, scan); err != nil {
		return nil, false, err
	}
	end := true
	for addr, nc := range s.nodes {
		switch {
		case !visited[addr]:
			delete(s.nodes, addr) // no longer a master
		case !nc.wrap:
			end = false
		}
	}
	if end {
		for _, nc := range s.nodes {
			nc.wrap = false
		}
	}
	return s.admit(out, busy), end, nil
}

// passTicks is how many calls the next pass is spread over.
func (s *Scanner) passTicks() int {
	ticks := max(s.PassTicks, 1)
	if s.SliceObjects > 0 {
		ticks = max(ticks, (len(s.owner)+s.SliceObjects-1)/s.SliceObjects)
	}
	return ticks
}

// admit counts the keys a slice returned into the pass and keeps those
// the --max-keys cut lets in: any key already known or read by name (busy),
// then new ones up to the limit, past it only those that matter or are
// pinned.
func (s *Scanner) admit(slice []string, busy map[string]bool) []string {
	out := slice[:0]
	known := len(s.owner) + len(s.records) // and those admitted now
	for _, k := range slice {
		if s.seen[k] {
			continue
		}
		s.pass.matched++
		_, had := s.owner[k]
		switch {
		case had || s.records[k] || busy[k]:
		case known < s.o.MaxKeys:
			known++
		case matters(k) || s.o.pinned(k):
			s.pass.kept++
			known++
		default:
			// Not remembered, so that the memory stays bounded by
			// --max-keys: as List, a key SCAN returns twice in a pass
			// (a rehash) is counted twice.
			s.pass.leftOut++
			continue
		}
		s.seen[k] = true
		out = append(out, k)
	}
	return out
}

// apply brings the keys map up to date with what infos say of keys:
// gone keys leave their object, the others join theirs (unlock latches
// only an object known otherwise). Objects left without keys are dropped,
// unless read by name now.
func (s *Scanner) apply(keys []string, infos map[string]objinfo.KeyInfo, read map[string]bool, keyless func(string) bool) {
	for _, k := range keys {
		ki := infos[k]
		if ki.Type == "none" || registry.IsKey(k) {
			s.drop(k)
			if ki.Type != "none" {
				s.records[k] = true
			} else {
				delete(s.records, k)
			}
			continue
		}
		owner, derived := classify.Companion(k, ki.Type)
		if !derived {
			owner = k
		}
		if !derived && ki.Type == "string" && classify.IsUnlockLatch(k) {
			s.drop(k) // a latch of a name that does not parse
			continue
		}
		if old, ok := s.owner[k]; ok && old != owner {
			s.drop(k)
		}
		s.owner[k] = owner
		e := s.objs[owner]
		if e == nil {
			e = &entry{keys: map[string]bool{}, deadline: -1}
			s.objs[owner], s.sorted = e, nil
		}
		e.keys[k] = true
		read[owner] = true
	}
	for n := range read {
		e := s.objs[n]
		switch {
		case e != nil && e.found():
		case keyless(n):
			if e == nil {
				s.objs[n], s.sorted = &entry{keys: map[string]bool{}, deadline: -1}, nil
			}
		default:
			s.forget(n)
		}
	}
}

// found reports an object found by a key of its own, not only by unlock
// latches (they never make an object).
func (e *entry) found() bool {
	for k := range e.keys {
		if !classify.IsUnlockLatch(k) {
			return true
		}
	}
	return false
}

// forget drops object n and its keys.
func (s *Scanner) forget(n string) {
	if e := s.objs[n]; e != nil {
		for k := range e.keys {
			delete(s.owner, k)
		}
	}
	if _, ok := s.objs[n]; ok {
		delete(s.objs, n)
		s.sorted = nil
	}
}

// drop forgets key k.
func (s *Scanner) drop(k string) {
	n, ok := s.owner[k]
	if !ok {
		return
	}
	delete(s.owner, k)
	if e := s.objs[n]; e != nil {
		delete(e.keys, k)
	}
}

// classify reads the objects read names (those the scanner knows), keeps
// their readings and works out the hot set.
func (s *Scanner) classify(ctx context.Context, read map[string]bool, infos map[string]objinfo.KeyInfo, busy []string, recs objinfo.Clients, now int64) error {
	isBusy := map[string]bool{}
	for _, n := range busy {
		isBusy[n] = true
	}
	var names []string
	for n := range read {
		if s.objs[n] != nil {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	s.hot = map[string]bool{}
	all := recs
	for start := 0; start < len(names); start += Batch {
		part := names[start:min(start+Batch, len(names))]
		objs, fields, err := classifyDerived(ctx, s.rdb, part, s.derive, infos, &all)
		if err != nil {
			return err
		}
		for i := range objs {
			o := &objs[i]
			e := s.objs[o.Name]
			o.Keys = make([]string, 0, len(e.keys))
			for k := range e.keys {
				o.Keys = append(o.Keys, k)
			}
			sort.Strings(o.Keys)
			s.readings++
			o.reading = s.readings
			e.obj, e.deadline, e.fields = o, -1, ""
			if fields[i] != nil {
				e.fields = fieldsText(fields[i])
			}
			if o.TTLms >= 0 {
				e.deadline = now + o.TTLms
			}
			if isBusy[o.Name] || s.o.pinned(o.Name) || hot(o) {
				s.hot[o.Name] = true
			}
		}
	}
	return nil
}

// derive returns the derived names of a known object, derived once.
func (s *Scanner) derive(n string) classify.Names {
	e := s.objs[n]
	if e.d == nil {
		d := classify.Derive(n)
		e.d = &d
	}
	return *e.d
}

// hot reports an object whose changes the scanner must see at once: one
// waited on or queued for, with acquired expirable permits (they expire
// by themselves), or held by a client that keeps a record (the record
// moves on, the holder may die).
func hot(o *Object) bool {
	if o.Waiters > 0 || o.Queue > 0 || o.Acquired != nil && *o.Acquired > 0 {
		return true
	}
	for _, h := range o.Holders {
		if h.Client != nil {
			return true
		}
	}
	return false
}

// result is the listing from what the scanner knows: a TTL not read now
// counts down from its reading.
func (s *Scanner) result(now int64) *Result {
	if s.sorted == nil {
		names := make([]string, 0, len(s.objs))
		for n := range s.objs {
			names = append(names, n)
		}
		sort.Strings(names)
		s.sorted = make([]*entry, len(names))
		for i, n := range names {
			s.sorted[i] = s.objs[n]
		}
	}
	res := &Result{Pattern: s.o.Pattern, Objects: make([]Object, 0, len(s.sorted)), ScannedKeys: len(s.owner) + len(s.records), MaxKeys: s.o.MaxKeys,
		Truncated: s.done.leftOut > 0, MatchedKeys: s.done.matched, LeftOut: s.done.leftOut, KeptPastLimit: s.done.kept}
	for _, e := range s.sorted {
		if e.obj == nil {
			continue
		}
		obj := *e.obj
		if e.deadline >= 0 {
			obj.TTLms = max(e.deadline-now, 0)
		}
		if s.o.keep(obj) {
			res.Objects = append(res.Objects, obj)
		}
	}
	return res
}
