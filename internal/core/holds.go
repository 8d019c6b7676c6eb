package core

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/goredisson/redisson/internal/renewal"
)

// Holds tracks what this client holds: per lock key and owner field, the
// lease on the renewal wheel and the contexts handed to the holder. Every
// lock handle of the client shares it, so two handles for one name renew and
// release the same hold.
type Holds struct {
	mu     sync.Mutex
	m      map[holdKey]*hold
	owners map[string]int // holders per key
	closed bool           // the client closed: no new holds
}

type holdKey struct{ key, owner string }

type hold struct {
	key, owner string
	ttl        time.Duration
	lease      *renewal.Lease
	ctxs       []*holdCtx
	ctxBuf     [1]*holdCtx // ctxs' storage for the usual single hold
	onEnd      func(cause error)
	gen        uint64 // bumped with every new lease; a stale lease's OnLost is ignored
}

// holdCtx is one acquisition's context, handed to the holder; Unlock with
// that context ends it. It is the cancelable context itself, so that an
// acquisition costs one context, not a cancel context and a value context.
type holdCtx struct {
	context.Context
	cancel context.CancelCauseFunc
	key    string
}

type holdCtxKey struct{ key string }

func (c *holdCtx) String() string {
	return fmt.Sprint(c.Context) + ".WithHold(" + c.key + ")"
}

func (c *holdCtx) Value(k any) any {
	if hk, ok := k.(holdCtxKey); ok && hk.key == c.key {
		return c
	}
	return c.Context.Value(k)
}

// Acquire is what an object tells the registry after its acquire script
// succeeded.
type Acquire struct {
	Key   string
	Owner string
	// Kind renews the lease (watchdog); nil for a fixed lease.
	Kind renewal.Kind
	TTL  time.Duration
	// Start is when the acquire request was sent.
	Start time.Time
	// OnEnd, if set on the owner's first hold, is called once when the hold
	// ends: cause context.Canceled for an unlock, ErrLockLost (wrapped) or
	// ErrClosed otherwise. It must not block.
	OnEnd func(cause error)
}

// Acquired records a successful acquisition and returns the holder's context:
// done when the hold ends, with cause ErrLockLost when ownership is lost and
// ErrClosed when the client closes.
func (rt *Runtime) Acquired(ctx context.Context, a Acquire) context.Context {
	cctx, cancel := context.WithCancelCause(ctx)
	hc := &holdCtx{Context: cctx, cancel: cancel, key: a.Key}

	hs := &rt.holds
	hs.mu.Lock()
	defer hs.mu.Unlock()
	if hs.closed {
		cancel(ErrClosed)
		return hc
	}
	if hs.m == nil {
		hs.m = make(map[holdKey]*hold)
		hs.owners = make(map[string]int)
	}
	hk := holdKey{a.Key, a.Owner}
	h := hs.m[hk]
	if h == nil {
		h = &hold{key: a.Key, owner: a.Owner, onEnd: a.OnEnd}
		h.ctxs = h.ctxBuf[:0]
		hs.m[hk] = h
		hs.owners[a.Key]++
	} else if h.lease != nil {
		rt.Wheel.Cancel(h.lease)
	}
	h.ttl = a.TTL
	h.gen++
	gen := h.gen
	h.lease = rt.Wheel.Add(renewal.Spec{
		Key:   a.Key,
		Owner: a.Owner,
		Kind:  a.Kind,
		TTL:   a.TTL,
		Start: a.Start,
		OnLost: func(cause error) {
			rt.loseIf(h, gen, fmt.Errorf("%w: %s: %w", ErrLockLost, h.key, cause))
		},
	})
	h.ctxs = append(h.ctxs, hc)
	return hc
}

// LeaseOf returns the lease the owner last took the lock with (Redisson
// re-applies it on a partial unlock), or def when the owner holds nothing here.
func (rt *Runtime) LeaseOf(key, owner string, def time.Duration) time.Duration {
	hs := &rt.holds
	hs.mu.Lock()
	defer hs.mu.Unlock()
	if h := hs.m[holdKey{key, owner}]; h != nil {
		return h.ttl
	}
	return def
}

// HoldDepth returns how many holds of key the owner has through this client
// (its re-entries), 0 when it holds nothing.
func (rt *Runtime) HoldDepth(key, owner string) int {
	hs := &rt.holds
	hs.mu.Lock()
	defer hs.mu.Unlock()
	if h := hs.m[holdKey{key, owner}]; h != nil {
		return len(h.ctxs)
	}
	return 0
}

// HeldLocally reports whether any owner holds key through this client.
func (rt *Runtime) HeldLocally(key string) bool {
	hs := &rt.holds
	hs.mu.Lock()
	defer hs.mu.Unlock()
	return hs.owners[key] > 0
}

// Holding reports whether the owner holds key through this client.
func (rt *Runtime) Holding(key, owner string) bool {
	hs := &rt.holds
	hs.mu.Lock()
	defer hs.mu.Unlock()
	return hs.m[holdKey{key, owner}] != nil
}

// HeldByOther reports whether an owner other than owner holds key through
// this client.
func (rt *Runtime) HeldByOther(key, owner string) bool {
	hs := &rt.holds
	hs.mu.Lock()
	defer hs.mu.Unlock()
	n := hs.owners[key]
	return n > 1 || (n == 1 && hs.m[holdKey{key, owner}] == nil)
}

// Released records an unlock. full says the lock is gone (every hold of the
// owner ends); otherwise only the hold of ctx (or the newest) ends and the
// lease, re-applied by the script at start, runs on.
func (rt *Runtime) Released(ctx context.Context, key, owner string, full bool, start time.Time) {
	hs := &rt.holds
	hs.mu.Lock()
	h := hs.m[holdKey{key, owner}]
	if h == nil {
		hs.mu.Unlock()
		return
	}
	if full {
		hs.mu.Unlock()
		rt.lose(h, context.Canceled)
		return
	}
	defer hs.mu.Unlock()
	hc, _ := ctx.Value(holdCtxKey{key}).(*holdCtx)
	i := len(h.ctxs) - 1
	for j, c := range h.ctxs {
		if c == hc {
			i = j
		}
	}
	if i >= 0 {
		h.ctxs[i].cancel(context.Canceled)
		h.ctxs = append(h.ctxs[:i], h.ctxs[i+1:]...)
	}
	if len(h.ctxs) == 0 {
		// Redis counts more holds than we handed out: stop renewing, so the
		// surplus expires with the lease instead of living forever.
		rt.Logger.Warn("redisson: lock still held after the last local hold was released; letting it expire",
			"lock", key, "owner", owner)
		hs.mu.Unlock()
		rt.lose(h, context.Canceled)
		hs.mu.Lock()
		return
	}
	rt.Wheel.Reset(h.lease, start, h.ttl)
}

// Abandon ends the owner's hold after an unlock whose outcome is unknown:
// renewal stops, so the lock expires with its lease if it is still there.
func (rt *Runtime) Abandon(key, owner string, cause error) {
	hs := &rt.holds
	hs.mu.Lock()
	h := hs.m[holdKey{key, owner}]
	hs.mu.Unlock()
	if h != nil {
		rt.lose(h, cause)
	}
}

// Lost ends every local hold of key, e.g. after a force unlock.
func (rt *Runtime) Lost(key string, cause error) {
	hs := &rt.holds
	hs.mu.Lock()
	var all []*hold
	if hs.owners[key] > 0 {
		for hk, h := range hs.m {
			if hk.key == key {
				all = append(all, h)
			}
		}
	}
	hs.mu.Unlock()
	for _, h := range all {
		rt.lose(h, cause)
	}
}

// loseAll ends every hold with cause and refuses new ones (Close).
func (rt *Runtime) loseAll(cause error) {
	hs := &rt.holds
	hs.mu.Lock()
	hs.closed = true
	all := make([]*hold, 0, len(hs.m))
	for _, h := range hs.m {
		all = append(all, h)
	}
	hs.mu.Unlock()
	for _, h := range all {
		rt.lose(h, cause)
	}
}

// HoldCount returns how many holds this client tracks (tests, stats).
func (rt *Runtime) HoldCount() int {
	hs := &rt.holds
	hs.mu.Lock()
	defer hs.mu.Unlock()
	return len(hs.m)
}

// loseIf ends a hold for its lease of generation gen only: a lease replaced
// by a re-entry may still report its loss after it was cancelled.
func (rt *Runtime) loseIf(h *hold, gen uint64, cause error) {
	hs := &rt.holds
	hs.mu.Lock()
	current := h.gen == gen
	hs.mu.Unlock()
	if current {
		rt.lose(h, cause)
	}
}

// lose ends a hold: its lease leaves the wheel and its contexts are
// cancelled with cause (context.Canceled for a normal release).
func (rt *Runtime) lose(h *hold, cause error) {
	hs := &rt.holds
	hs.mu.Lock()
	hk := holdKey{h.key, h.owner}
	if hs.m[hk] != h {
		hs.mu.Unlock()
		return
	}
	delete(hs.m, hk)
	if hs.owners[h.key]--; hs.owners[h.key] <= 0 {
		delete(hs.owners, h.key)
	}
	ctxs := h.ctxs
	h.ctxs = nil
	lease := h.lease
	hs.mu.Unlock()
	if lease != nil {
		rt.Wheel.Cancel(lease)
	}
	for _, c := range ctxs {
		c.cancel(cause)
	}
	if h.onEnd != nil {
		h.onEnd(cause)
	}
}
