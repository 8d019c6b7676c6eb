package core

import (
	"sort"
	"sync"
)

// MaxPermitIDs bounds the permit ids the ledger keeps per semaphore: the
// ids of leased permits nobody released (their lease ended) are dropped,
// oldest first, past it.
const MaxPermitIDs = 1000

// PermitLedger counts the semaphore permits this client took and has not
// given back, for its registration record: tools show the holders of a
// semaphore's permits from it. It asks nothing of Redis. A plain
// semaphore's permits have no identity (any client may release them), so
// its count only goes down to zero; a permit-expirable semaphore's permits
// are listed by id.
type PermitLedger struct {
	mu      sync.Mutex
	m       map[string]*permitEntry
	changed chan struct{}
}

type permitEntry struct {
	count int
	ids   []string // oldest first
}

// PermitsHeld is what the ledger holds of one semaphore.
type PermitsHeld struct {
	Name  string
	Count int
	// IDs are a permit-expirable semaphore's permit ids (hex), oldest
	// first; nil for a plain semaphore.
	IDs []string
}

// Changed returns a channel that receives a token (at most one waits)
// after the ledger changes: a hint to write the record again.
func (p *PermitLedger) Changed() <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.changed == nil {
		p.changed = make(chan struct{}, 1)
	}
	return p.changed
}

// signal drops a token in changed; p.mu is held.
func (p *PermitLedger) signal() {
	select {
	case p.changed <- struct{}{}:
	default: // nil (nobody listens) or a token already waits
	}
}

// Took records n permits of the semaphore name taken, with their ids for a
// permit-expirable semaphore.
func (p *PermitLedger) Took(name string, n int, ids []string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.m == nil {
		p.m = map[string]*permitEntry{}
	}
	e := p.m[name]
	if e == nil {
		e = &permitEntry{}
		p.m[name] = e
	}
	e.ids = append(e.ids, ids...)
	if over := len(e.ids) - MaxPermitIDs; over > 0 {
		e.ids = append(e.ids[:0:0], e.ids[over:]...)
	}
	if ids != nil {
		e.count = len(e.ids)
	} else {
		e.count += n
	}
	p.signal()
}

// Gave records n permits of name given back: the permit id of a
// permit-expirable semaphore, else a count.
func (p *PermitLedger) Gave(name string, n int, id string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	e := p.m[name]
	if e == nil {
		return
	}
	if id != "" {
		for i, x := range e.ids {
			if x == id {
				e.ids = append(e.ids[:i], e.ids[i+1:]...)
				break
			}
		}
		e.count = len(e.ids)
	} else {
		e.count = max(e.count-n, 0)
	}
	if e.count == 0 {
		delete(p.m, name)
	}
	p.signal()
}

// Held lists what the ledger holds, by name.
func (p *PermitLedger) Held() []PermitsHeld {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]PermitsHeld, 0, len(p.m))
	for name, e := range p.m {
		h := PermitsHeld{Name: name, Count: e.count}
		if len(e.ids) > 0 {
			h.IDs = append([]string(nil), e.ids...)
		}
		out = append(out, h)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
