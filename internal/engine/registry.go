package engine

import "sync"

// registry holds per-lock state that every handle of one lock in one client
// shares while someone uses it (the local wait queue), and drops it when the
// last user leaves, so that names used once cost nothing later.
type registry[T any] struct {
	mu sync.Mutex
	m  map[string]*entry[T]
}

type entry[T any] struct {
	v    T
	refs int
}

// ref is one use of a shared state. Release it once when done; further
// calls do nothing. It is a value so that taking one allocates nothing
// beyond the state itself.
type ref[T any] struct {
	r    *registry[T]
	key  string
	e    *entry[T]
	done bool
}

// value returns the shared state.
func (r *ref[T]) value() T { return r.e.v }

// release ends this use; the state is dropped when no use is left.
func (r *ref[T]) release() {
	if r.done || r.e == nil {
		return
	}
	r.done = true
	reg := r.r
	reg.mu.Lock()
	defer reg.mu.Unlock()
	r.e.refs--
	if r.e.refs == 0 && reg.m[r.key] == r.e {
		delete(reg.m, r.key)
	}
}

// use returns a use of the state under key, made by mk when absent.
func (reg *registry[T]) use(key string, mk func() T) ref[T] {
	reg.mu.Lock()
	defer reg.mu.Unlock()
	if reg.m == nil {
		reg.m = make(map[string]*entry[T])
	}
	e := reg.m[key]
	if e == nil {
		e = &entry[T]{v: mk()}
		reg.m[key] = e
	}
	e.refs++
	return ref[T]{r: reg, key: key, e: e}
}

// peek returns a use of the state under key only if someone uses it now.
func (reg *registry[T]) peek(key string) (ref[T], bool) {
	reg.mu.Lock()
	defer reg.mu.Unlock()
	e := reg.m[key]
	if e == nil {
		return ref[T]{}, false
	}
	e.refs++
	return ref[T]{r: reg, key: key, e: e}, true
}
