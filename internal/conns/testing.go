package conns

import (
	"time"

	"github.com/redis/go-redis/v9"
)

// What tests of the packages above (core) look at inside a Pool.

// Claimed reports how many of node's free dedicated connections have a
// boundConn, and how many are free (tests).
func (p *Pool) Claimed(node *redis.Client) (claimed, free int) {
	p.set.mu.Lock()
	defer p.set.mu.Unlock()
	nc := p.set.nodes[node]
	if nc == nil {
		return 0, 0
	}
	for _, dc := range nc.free {
		if dc.bc != nil {
			claimed++
		}
	}
	return claimed, len(nc.free)
}

// SetIdle sets how long a dedicated connection may sit unused and still be
// used (tests; 0: dedicatedIdle).
func (p *Pool) SetIdle(d time.Duration) {
	p.set.mu.Lock()
	p.set.idle = d
	p.set.mu.Unlock()
}

// SlotMapRead reports whether a cluster pool has read its slot map (tests).
func (p *Pool) SlotMapRead() bool { return p.binder != nil && p.binder.ready.Load() }

// WithoutBinder runs f with binding turned off, as on a client whose
// connections cannot be bound (tests). Nothing else may run on p meanwhile.
func (p *Pool) WithoutBinder(f func()) {
	b := p.binder
	p.binder = nil
	defer func() { p.binder = b }()
	f()
}

// Held returns the connection pin holds, nil once taken or given back
// (tests).
func (pin *Pin) Held() *Conn { return pin.dc.Load() }
