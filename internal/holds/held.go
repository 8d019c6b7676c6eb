package holds

import "time"

// Held describes one owner's hold on one key, as this client records it.
type Held struct {
	// Key is the lock key; Owner the hash field "<client id>:<owner id>".
	Key, Owner string
	// Object is the object's kind as errors name it ("lock", "read lock").
	Object string
	// Since is when the owner's first (outermost) hold was asked for, or
	// passed on to the goroutine holding it now (Registry.PassOn).
	Since time.Time
	// Depth is the number of the owner's holds (its re-entries).
	Depth int
}

// Held returns what this client holds now, in no particular order, and
// arms HeldChanged: the first change after this call drops its token.
func (r *Registry) Held() []Held {
	hs := r
	hs.mu.Lock()
	defer hs.mu.Unlock()
	hs.armed = true
	out := make([]Held, 0, len(hs.m))
	for _, o := range hs.m {
		out = append(out, Held{Key: o.key, Owner: o.owner, Object: o.object, Since: o.since, Depth: len(o.holds)})
	}
	return out
}

// HeldChanged returns a channel that receives a token (at most one waits)
// when an owner record is created, removed or passed on for the first time since the
// last Held call: a hint to read Held again. Later changes drop no token
// until Held is read, so a reader that reads at its own pace (the
// registration record, at most 4 writes a second) is woken once per read,
// not twice per lock+unlock pair.
func (r *Registry) HeldChanged() <-chan struct{} {
	hs := r
	hs.mu.Lock()
	defer hs.mu.Unlock()
	if hs.changed == nil {
		hs.changed = make(chan struct{}, 1)
		hs.armed = true
	}
	return hs.changed
}

// signal drops a token in changed if it is armed; hs.mu is held.
func (hs *Registry) signal() {
	if !hs.armed {
		return
	}
	hs.armed = false
	select {
	case hs.changed <- struct{}{}:
	default:
	}
}
