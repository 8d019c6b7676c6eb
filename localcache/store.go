package localcache

import (
	"sync"
	"time"
)

// entry is one cached key: its value, its hash (how messages name it),
// its times, and its place in the eviction order.
type entry[K comparable, V any] struct {
	key     K
	val     V
	hash    hash
	created int64 // unix nanoseconds; 0 when neither TTL nor max idle is set
	access  int64
	// LRU: the list, oldest first.
	prev, next *entry[K, V]
	// LFU: the heap of (count, id), least first.
	count int64
	id    uint64
	index int
}

// store is the near cache: a Go map by key, an index by hash for the
// messages, and Redisson's eviction (LRU: a list; LFU: a heap ordered by
// access count then age; NONE: nothing, TTL and max idle only). One mutex
// guards it; a hit holds it for a map lookup and a list or heap step, and
// allocates nothing.
type store[K comparable, V any] struct {
	mu     sync.Mutex
	byKey  map[K]*entry[K, V]
	byHash map[hash]*entry[K, V]
	policy Eviction
	limit  int   // 0: no limit
	ttl    int64 // nanoseconds; 0: none
	idle   int64
	off    bool // CacheSize -1: cache nothing

	head, tail *entry[K, V] // LRU
	heap       []*entry[K, V]
	floor      int64  // LFU: the count of the last evicted entry (Redisson lowers every count by it)
	ids        uint64 // LFU: insertion order, for ties
	nextExpiry int64  // no entry expires before this (0: unknown)
}

func newStore[K comparable, V any](o Options) *store[K, V] {
	s := &store[K, V]{
		byKey:  make(map[K]*entry[K, V]),
		byHash: make(map[hash]*entry[K, V]),
		policy: o.Eviction,
		ttl:    int64(o.TTL),
		idle:   int64(o.MaxIdle),
		off:    o.CacheSize < 0,
	}
	if o.Eviction != EvictionNone && o.CacheSize > 0 {
		s.limit = o.CacheSize
	}
	return s
}

func (s *store[K, V]) timed() bool { return s.ttl != 0 || s.idle != 0 }

// expired is StdCachedValue.isExpired: past its TTL since it was made, or
// past max idle since it was last read.
func (s *store[K, V]) expired(e *entry[K, V], now int64) bool {
	if s.ttl != 0 && e.created+s.ttl < now {
		return true
	}
	return s.idle != 0 && e.access+s.idle < now
}

func (s *store[K, V]) expiry(e *entry[K, V]) int64 {
	exp := int64(1<<63 - 1)
	if s.ttl != 0 {
		exp = e.created + s.ttl
	}
	if s.idle != 0 {
		exp = min(exp, e.access+s.idle)
	}
	return exp
}

// get returns the value of key and counts the read as Redisson's caches
// do (LRU: most recent; LFU: one more access; max idle restarts).
func (s *store[K, V]) get(key K) (V, bool) {
	s.mu.Lock()
	e := s.byKey[key]
	if e == nil {
		s.mu.Unlock()
		var zero V
		return zero, false
	}
	if s.timed() {
		now := time.Now().UnixNano()
		if s.expired(e, now) {
			s.unlink(e)
			s.mu.Unlock()
			var zero V
			return zero, false
		}
		e.access = now
	}
	s.touch(e)
	v := e.val
	s.mu.Unlock()
	return v, true
}

// peek returns the value of key without counting a read.
func (s *store[K, V]) peek(key K) (V, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.byKey[key]
	if e == nil || s.timed() && s.expired(e, time.Now().UnixNano()) {
		var zero V
		return zero, false
	}
	return e.val, true
}

// put stores key's value (a new entry, as Redisson makes one on every
// put) and returns the previous value.
func (s *store[K, V]) put(key K, h hash, v V) (V, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.putLocked(key, h, v)
}

func (s *store[K, V]) putLocked(key K, h hash, v V) (V, bool) {
	var old V
	if s.off {
		return old, false
	}
	now := int64(0)
	if s.timed() {
		now = time.Now().UnixNano()
	}
	had := false
	if e := s.byKey[key]; e != nil {
		old, had = e.val, !s.timed() || !s.expired(e, now)
		s.unlink(e)
	} else if s.limit > 0 && len(s.byKey) >= s.limit {
		if !s.dropExpired(now) {
			s.evict()
		}
	}
	if e := s.byHash[h]; e != nil {
		// Another Go key with the same encoding: one Redis field.
		s.unlink(e)
	}
	e := &entry[K, V]{key: key, val: v, hash: h, created: now, access: now}
	s.byKey[key] = e
	s.byHash[h] = e
	s.link(e)
	return old, had
}

// remove drops key; it returns the value it had.
func (s *store[K, V]) remove(key K) (V, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.byKey[key]
	if e == nil {
		var zero V
		return zero, false
	}
	s.unlink(e)
	return e.val, !s.timed() || !s.expired(e, time.Now().UnixNano())
}

// drop removes the entries of hashes and returns how many it had.
func (s *store[K, V]) drop(hashes []hash) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, h := range hashes {
		if e := s.byHash[h]; e != nil {
			s.unlink(e)
			n++
		}
	}
	return n
}

// clear drops everything and returns how many entries there were.
func (s *store[K, V]) clear() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := len(s.byKey)
	clear(s.byKey)
	clear(s.byHash)
	s.head, s.tail, s.heap, s.floor, s.nextExpiry = nil, nil, nil, 0, 0
	return n
}

// size counts the entries, expired ones that were not yet dropped
// included (Redisson's cachedSize is its map's size).
func (s *store[K, V]) size() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.byKey)
}

// snapshot returns the live entries, for LOCALCACHE store mode's
// iteration and reads.
func (s *store[K, V]) snapshot() []*entry[K, V] {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now().UnixNano()
	out := make([]*entry[K, V], 0, len(s.byKey))
	for _, e := range s.byKey {
		if !s.timed() || !s.expired(e, now) {
			out = append(out, &entry[K, V]{key: e.key, val: e.val})
		}
	}
	return out
}

// dropExpired is removeExpiredEntries: with TTL or max idle, once the
// earliest expiry seen has passed, drop every expired entry. It reports
// whether it dropped any.
func (s *store[K, V]) dropExpired(now int64) bool {
	if !s.timed() || s.nextExpiry > now {
		return false
	}
	next := int64(1<<63 - 1)
	dropped := false
	for _, e := range s.byKey {
		if s.expired(e, now) {
			s.unlink(e)
			dropped = true
		} else {
			next = min(next, s.expiry(e))
		}
	}
	s.nextExpiry = next
	return dropped
}

// evict makes room by the policy: LRU drops the least recently used, LFU
// the least used (the oldest of equals) and lowers every count by its.
func (s *store[K, V]) evict() {
	switch s.policy {
	case EvictionLRU:
		if s.head != nil {
			s.unlink(s.head)
		}
	case EvictionLFU:
		if len(s.heap) > 0 {
			e := s.heap[0]
			s.floor = e.count
			s.unlink(e)
		}
	}
}

func (s *store[K, V]) link(e *entry[K, V]) {
	switch s.policy {
	case EvictionLRU:
		e.prev = s.tail
		if s.tail != nil {
			s.tail.next = e
		} else {
			s.head = e
		}
		s.tail = e
	case EvictionLFU:
		s.ids++
		e.id, e.count = s.ids, s.floor
		e.index = len(s.heap)
		s.heap = append(s.heap, e)
		s.up(e.index)
	}
}

func (s *store[K, V]) unlink(e *entry[K, V]) {
	if s.byKey[e.key] == e {
		delete(s.byKey, e.key)
	}
	if s.byHash[e.hash] == e {
		delete(s.byHash, e.hash)
	}
	switch s.policy {
	case EvictionLRU:
		if e.prev != nil {
			e.prev.next = e.next
		} else {
			s.head = e.next
		}
		if e.next != nil {
			e.next.prev = e.prev
		} else {
			s.tail = e.prev
		}
		e.prev, e.next = nil, nil
	case EvictionLFU:
		i, last := e.index, len(s.heap)-1
		if i != last {
			s.swap(i, last)
		}
		s.heap[last] = nil
		s.heap = s.heap[:last]
		if i != last {
			s.down(i)
			s.up(i)
		}
	}
}

// touch counts a read in the eviction order.
func (s *store[K, V]) touch(e *entry[K, V]) {
	switch s.policy {
	case EvictionLRU:
		if s.tail == e {
			return
		}
		if e.prev != nil {
			e.prev.next = e.next
		} else {
			s.head = e.next
		}
		e.next.prev = e.prev
		e.prev, e.next = s.tail, nil
		s.tail.next = e
		s.tail = e
	case EvictionLFU:
		e.count++
		s.down(e.index)
	}
}

func (s *store[K, V]) less(i, j int) bool {
	a, b := s.heap[i], s.heap[j]
	return a.count < b.count || a.count == b.count && a.id < b.id
}

func (s *store[K, V]) swap(i, j int) {
	s.heap[i], s.heap[j] = s.heap[j], s.heap[i]
	s.heap[i].index, s.heap[j].index = i, j
}

func (s *store[K, V]) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !s.less(i, p) {
			return
		}
		s.swap(i, p)
		i = p
	}
}

func (s *store[K, V]) down(i int) {
	n := len(s.heap)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		c := l
		if r := l + 1; r < n && s.less(r, l) {
			c = r
		}
		if !s.less(c, i) {
			return
		}
		s.swap(i, c)
		i = c
	}
}
