package core

import "sync"

// Locals holds per-object state that every handle of one object in one
// client shares while someone uses it (e.g. a lock's local wait queue), and
// drops it when the last user leaves, so names used once cost nothing later.
type Locals struct {
	mu sync.Mutex
	m  map[string]*localEntry
}

type localEntry struct {
	v    any
	refs int
}

// LocalRef is one use of a shared local state. Release it once when done;
// further calls do nothing. It is a value so that taking one allocates
// nothing beyond the state itself.
type LocalRef struct {
	ls   *Locals
	key  string
	e    *localEntry
	done bool
}

// Value returns the shared state.
func (r *LocalRef) Value() any { return r.e.v }

// Release ends this use; the state is dropped when no use is left.
func (r *LocalRef) Release() {
	if r.done || r.e == nil {
		return
	}
	r.done = true
	ls := r.ls
	ls.mu.Lock()
	defer ls.mu.Unlock()
	r.e.refs--
	if r.e.refs == 0 && ls.m[r.key] == r.e {
		delete(ls.m, r.key)
	}
}

// Local returns a use of the shared state under key, made by mk when absent.
func (rt *Runtime) Local(key string, mk func() any) LocalRef {
	ls := &rt.locals
	ls.mu.Lock()
	defer ls.mu.Unlock()
	if ls.m == nil {
		ls.m = make(map[string]*localEntry)
	}
	e := ls.m[key]
	if e == nil {
		e = &localEntry{v: mk()}
		ls.m[key] = e
	}
	e.refs++
	return LocalRef{ls: ls, key: key, e: e}
}

// Peek returns a use of the shared state under key only if someone uses it
// now.
func (rt *Runtime) Peek(key string) (LocalRef, bool) {
	ls := &rt.locals
	ls.mu.Lock()
	defer ls.mu.Unlock()
	e := ls.m[key]
	if e == nil {
		return LocalRef{}, false
	}
	e.refs++
	return LocalRef{ls: ls, key: key, e: e}, true
}
