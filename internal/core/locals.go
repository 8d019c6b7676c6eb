package core

import "sync"

// Locals holds per-object state that every handle of one object in one
// client shares while someone uses it (e.g. a lock's local wait queue), and
// drops it when the last user leaves, so names used once cost nothing later.
type Locals struct {
	mu sync.Mutex
	m  map[string]*localRef
}

type localRef struct {
	v    any
	refs int
}

// Local returns the shared state under key, made by mk when absent, and a
// release func that the caller must call once when done with it.
func (rt *Runtime) Local(key string, mk func() any) (any, func()) {
	ls := &rt.locals
	ls.mu.Lock()
	defer ls.mu.Unlock()
	if ls.m == nil {
		ls.m = make(map[string]*localRef)
	}
	r := ls.m[key]
	if r == nil {
		r = &localRef{v: mk()}
		ls.m[key] = r
	}
	r.refs++
	return r.v, ls.releaser(key, r)
}

// Peek returns the shared state under key only if someone uses it now.
func (rt *Runtime) Peek(key string) (any, func(), bool) {
	ls := &rt.locals
	ls.mu.Lock()
	defer ls.mu.Unlock()
	r := ls.m[key]
	if r == nil {
		return nil, nil, false
	}
	r.refs++
	return r.v, ls.releaser(key, r), true
}

func (ls *Locals) releaser(key string, r *localRef) func() {
	var once sync.Once
	return func() {
		once.Do(func() {
			ls.mu.Lock()
			defer ls.mu.Unlock()
			r.refs--
			if r.refs == 0 && ls.m[key] == r {
				delete(ls.m, key)
			}
		})
	}
}
