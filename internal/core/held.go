package core

import "time"

// Held describes one owner's hold on one key, as this client records it.
type Held struct {
	// Key is the lock key; Owner the hash field "<client id>:<owner id>".
	Key, Owner string
	// Object is the object's kind as errors name it ("lock", "read lock").
	Object string
	// Since is when the owner's first (outermost) hold was asked for.
	Since time.Time
	// Depth is the number of the owner's holds (its re-entries).
	Depth int
}

// Held returns what this client holds now, in no particular order.
func (rt *Runtime) Held() []Held {
	hs := &rt.holds
	hs.mu.Lock()
	defer hs.mu.Unlock()
	out := make([]Held, 0, len(hs.m))
	for _, o := range hs.m {
		out = append(out, Held{Key: o.key, Owner: o.owner, Object: o.object, Since: o.since, Depth: len(o.holds)})
	}
	return out
}

// HeldChanged returns a channel that receives a token (at most one waits)
// after an owner record is created or removed: a hint to read Held again.
func (rt *Runtime) HeldChanged() <-chan struct{} {
	hs := &rt.holds
	hs.mu.Lock()
	defer hs.mu.Unlock()
	if hs.changed == nil {
		hs.changed = make(chan struct{}, 1)
	}
	return hs.changed
}

// signal drops a token in changed if someone listens; hs.mu is held.
func (hs *Holds) signal() {
	if hs.changed == nil {
		return
	}
	select {
	case hs.changed <- struct{}{}:
	default:
	}
}
