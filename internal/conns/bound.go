package conns

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson/internal/slot"
)

// Bounded runs call and returns when it does or when ctx is done, whichever
// comes first. go-redis ignores a context's deadline and cancellation while
// it waits for a reply unless the caller's client has ContextTimeoutEnabled
// (it then waits out its own ReadTimeout, 3 s by default): a lock call must
// not block past the bound its caller gave, and a holder must not sit in a
// stalled call past its lease. On ctx done the call goes on in the
// background until go-redis gives up; its outcome is unknown to the caller,
// which gets context.Cause(ctx) wrapped as a transport error.
//
// A context that can never be done (Done() == nil) and carries no bound
// set by Within runs call inline.
func Bounded[T any](ctx context.Context, call func(context.Context) (T, error)) (T, error) {
	if w, _ := ctx.Value(withinKey{}).(*withinCtx); w != nil {
		// A bound set by Within becomes a real deadline here.
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, w.limit)
		defer cancel()
	}
	if ctx.Done() == nil {
		return call(ctx)
	}
	type reply struct {
		v   T
		err error
	}
	ch := make(chan reply, 1)
	go func() {
		ReserveStack(0)
		v, err := call(ctx)
		ch <- reply{v, err}
	}()
	select {
	case r := <-ch:
		return r.v, r.err
	case <-ctx.Done():
		// A reply racing ctx wins: it is the real outcome.
		select {
		case r := <-ch:
			return r.v, r.err
		default:
		}
		var zero T
		return zero, &AbandonedError{Cause: context.Cause(ctx)}
	}
}

// AbandonedError reports a Redis call whose reply was not waited for
// because its context ended: whether it ran is unknown.
type AbandonedError struct{ Cause error }

func (e *AbandonedError) Error() string {
	return "no reply from Redis before the call's deadline: " + e.Cause.Error()
}

// Unwrap returns the context's cause (context.DeadlineExceeded,
// context.Canceled or the cancel cause).
func (e *AbandonedError) Unwrap() error { return e.Cause }

// Within returns ctx with a bound on the Redis calls the runtime makes
// under it (core.Runtime.Run, Bounded): each ends within d from now, as if
// ctx had that deadline. It is ctx itself when go-redis' ReadTimeout already
// ends a silent call about as soon, or ctx's own deadline comes first.
//
// The bound is a value, not a deadline: context.WithTimeout would start and
// stop a timer at every unlock, and with several goroutines locking at once
// the Go runtime then wakes an idle thread at most of the socket deadlines
// go-redis sets (docs/performance.md). A bound call leaves it to a
// sweeper, which ends the call at most softEvery after the bound (see
// soft.go); the rare call that
// needs a goroutine (Bounded) makes it a real deadline first. Other code
// sees ctx as it was: use the returned context only for those calls.
func (p *Pool) Within(ctx context.Context, d time.Duration) context.Context {
	if deadline, ok := ctx.Deadline(); ok && time.Until(deadline) <= d {
		return ctx
	}
	if p.readTimeout > 0 && p.readTimeout <= d+BoundSlack {
		return ctx
	}
	return &withinCtx{Context: ctx, limit: time.Now().Add(d)}
}

// withinCtx carries a bound set by Within.
type withinCtx struct {
	context.Context
	limit time.Time
}

type withinKey struct{}

func (c *withinCtx) Value(key any) any {
	if _, ok := key.(withinKey); ok {
		return c
	}
	return c.Context.Value(key)
}

// limitOf returns when calls under ctx must end: the earlier of ctx's
// deadline and a bound set by Within.
func limitOf(ctx context.Context) (time.Time, bool) {
	deadline, ok := ctx.Deadline()
	if w := withinFirst(ctx, deadline, ok); w != nil {
		return w.limit, true
	}
	return deadline, ok
}

// withinFirst returns the bound Within set on ctx when it comes before
// ctx's deadline (deadline, ok), nil otherwise.
func withinFirst(ctx context.Context, deadline time.Time, ok bool) *withinCtx {
	if w, _ := ctx.Value(withinKey{}).(*withinCtx); w != nil && (!ok || w.limit.Before(deadline)) {
		return w
	}
	return nil
}

// NeedsBound reports whether a call under ctx must go through Bounded:
// when ctx's deadline comes before go-redis' own ReadTimeout would end a
// silent call (or go-redis has none). Otherwise go-redis ends it in time
// by itself, and the call saves Bounded's goroutine, a large share of the
// lock path's cost. A ctx without deadline is
// bounded by ReadTimeout then: its cancellation is seen within that.
func (p *Pool) NeedsBound(ctx context.Context) bool {
	if p.readTimeout <= 0 {
		if ctx.Done() != nil {
			return true
		}
		_, ok := limitOf(ctx) // a bound set by Within
		return ok
	}
	// Deadline first: Done would make a cancel context allocate its
	// channel on every call.
	deadline, ok := ctx.Deadline()
	if w := withinFirst(ctx, deadline, ok); w != nil {
		// go-redis knows nothing of a bound set by Within, even with
		// ContextTimeoutEnabled.
		return time.Until(w.limit)+BoundSlack < p.readTimeout
	}
	return ok && !p.ctxTimeouts && time.Until(deadline)+BoundSlack < p.readTimeout
}

// BoundSlack is how far a deadline may come before go-redis' ReadTimeout
// and still be left to go-redis: a release attempt bounded by the default
// Timeout (3 s) meets the default ReadTimeout (3 s) a moment early.
const BoundSlack = 100 * time.Millisecond

// readTimeoutOf returns the go-redis client's ReadTimeout and whether it
// honours context deadlines itself (ContextTimeoutEnabled). The client's
// Options are the ones go-redis normalised in New: its default (0 given)
// is already filled in, and 0 or a negative value there means the client
// waits for a reply forever (-1 or -2 given); both give 0 here.
func readTimeoutOf(rdb redis.UniversalClient) (time.Duration, bool) {
	var d time.Duration
	var ctxTimeouts bool
	switch c := rdb.(type) {
	case *redis.Client:
		d, ctxTimeouts = c.Options().ReadTimeout, c.Options().ContextTimeoutEnabled
	case *redis.ClusterClient:
		d, ctxTimeouts = c.Options().ReadTimeout, c.Options().ContextTimeoutEnabled
	default:
		return 0, false
	}
	if d <= 0 {
		return 0, false
	}
	return d, ctxTimeouts
}

// needsBound is NeedsBound whatever the go-redis client's
// ContextTimeoutEnabled: whether ctx may end before go-redis' ReadTimeout
// would end a silent call.
func (p *Pool) needsBound(ctx context.Context) bool {
	if p.readTimeout <= 0 {
		if ctx.Done() != nil {
			return true
		}
		_, ok := limitOf(ctx) // a bound set by Within
		return ok
	}
	deadline, ok := limitOf(ctx)
	return ok && time.Until(deadline)+BoundSlack < p.readTimeout
}

// claim finds the boundConn dc runs on, bounded by ctx: the ECHO it sends
// runs before dc's calls can be bound, so it runs on a goroutine of its own
// (once per dedicated connection, not per call). It reports false, having
// given dc up, when the ECHO failed (dc is dropped) or ctx ended first (dc
// then belongs to that goroutine, which gives it back).
func (p *Pool) claim(ctx context.Context, dc *Conn) bool {
	type claimed struct {
		bc  *boundConn
		err error
	}
	ch := make(chan claimed, 1)
	go func() {
		bc, err := p.binder.claim(dc.conn, p.timeout)
		ch <- claimed{bc, err}
	}()
	select {
	case c := <-ch:
		dc.claimed, dc.bc = true, c.bc
		if c.err != nil {
			p.set.put(dc, c.err, isReply(c.err))
			return false
		}
		return true
	case <-ctx.Done():
		go func() {
			c := <-ch
			dc.claimed, dc.bc = true, c.bc
			p.set.put(dc, c.err, isReply(c.err))
		}()
		return false
	}
}

// reserveFor returns a free dedicated connection to the master of key (on
// a single node, the node) that calls under ctx can be bound on, or nil.
func (p *Pool) reserveFor(ctx context.Context, key string) *Conn {
	if p.cluster && key == "" {
		return nil
	}
	dc, _ := p.TakeBound(ctx, key)
	if dc != nil && p.cluster {
		dc.slot = slot.Of(key)
	}
	return dc
}

// TakeBound returns a free, claimed dedicated connection with a boundConn
// to the master of key (on a single node, the node), or nil when there is
// none: a cluster whose slot map was never read, WAIT due or not known to
// be, none free, none claimable. lost is true when a claim could not be
// made before ctx ended (nothing was sent).
func (p *Pool) TakeBound(ctx context.Context, key string) (dc *Conn, lost bool) {
	node := p.boundNode(ctx, key)
	if node == nil {
		return nil, false
	}
	if p.replicas != nil {
		n, known := p.replicas.Cached(ctx, node)
		if !known || n > 0 {
			return nil, false
		}
	}
	dc = p.set.get(node)
	if dc == nil {
		return nil, false
	}
	if !dc.claimed && !p.claim(ctx, dc) {
		return nil, ctx.Err() != nil
	}
	if dc.bc == nil {
		if p.cluster && !p.binder.opaque.Load() {
			// Dialled before its node had the hook: the pool would hand
			// it out again and again.
			p.retire(dc)
		} else {
			p.set.put(dc, nil, false)
		}
		return nil, false
	}
	return dc, false
}

// Inline reports whether a call whose outcome must be known (inflight.Settle)
// may run under ctx on the caller's goroutine, and with which context: a
// caller on the hot path asks first and builds no closure when it may. It
// calls pin.Done after the call (pin may be nil). key is the call's first
// script's first key, "" when unknown: on a cluster the connection pinned
// is one to key's master, and none is pinned without a key.
//
// A call under a deadline nearer than go-redis'
// ReadTimeout (but at least minPinned away) runs inline too when a
// dedicated connection that can be bound by ctx (see boundConn) is free:
// the context returned pins it for the call's first script (the acquire
// whose outcome must be known before it is compensated), so that it cannot
// fall back to Bounded's goroutine, whose outcome, abandoned, would be
// compensated before it is known. As on Settle's goroutine, the call runs
// without ctx's cancellation and deadline; only that script is bound by the
// deadline. Cut there, it comes back as an *AbandonedError without a
// Pending, and the caller resolves it as a lost reply.
func (p *Pool) Inline(ctx context.Context, key string) (context.Context, *Pin, bool) {
	if ctx.Done() == nil {
		return ctx, nil, true
	}
	if p.needsBound(ctx) {
		deadline, ok := limitOf(ctx)
		if !ok || time.Until(deadline) < minPinned {
			return nil, nil, false
		}
		if dc := p.reserveFor(ctx, key); dc != nil {
			pin := &Pin{pool: p, ctx: ctx}
			pin.dc.Store(dc)
			return context.WithValue(context.WithoutCancel(ctx), pinKey{}, pin), pin, true
		}
		return nil, nil, false
	}
	return context.WithoutCancel(ctx), nil, true
}

// minPinned is the least time before its deadline a call must have to run
// inline on a pinned connection (see Inline). A script cut at the deadline
// costs its connection (its reply is still to come). A deadline of a few
// milliseconds may well pass during a normal round trip: cut there, calls
// made go-redis dial all the time, and other callers then got "context
// canceled" from its pool (TestGiveUpLeavesNothingBehind). Such a call
// keeps Settle's goroutine, which reads the reply and keeps the connection.
const minPinned = 50 * time.Millisecond

// Pin keeps a bound dedicated connection for the first script of one
// inline call (see Inline).
type Pin struct {
	pool *Pool
	ctx  context.Context      // the caller's: its deadline bounds the script
	dc   atomic.Pointer[Conn] // nil once taken or given back
}

type pinKey struct{}

// Done gives the pinned connection back.
func (p *Pin) Done() {
	if p == nil {
		return
	}
	if dc := p.dc.Swap(nil); dc != nil {
		p.pool.set.put(dc, nil, false)
	}
}

// PinOf returns the Pin a context from Inline carries, nil when none.
func PinOf(ctx context.Context) *Pin {
	pin, _ := ctx.Value(pinKey{}).(*Pin)
	return pin
}

// TakePinned takes the connection pin holds for a script whose first key
// is key and binds it by the deadline of the context pin was made for; nil
// when pin holds none (its first script took it) or, on a cluster, key
// lies in another slot than the one pin was made for (the connection goes
// back). End the call with Unbind(c, nil).
func (p *Pool) TakePinned(pin *Pin, key string) *Conn {
	dc := pin.dc.Swap(nil)
	if dc == nil {
		return nil
	}
	if p.cluster && (key == "" || slot.Of(key) != dc.slot) {
		p.set.put(dc, nil, false)
		return nil
	}
	if d, has := pin.ctx.Deadline(); has {
		dc.bc.limit.Store(d.UnixNano())
	}
	dc.bc.gen.Add(1)
	return dc
}

// Context returns the context pin was made for (Inline's ctx): its end
// decides what a cut call's error says.
func (pin *Pin) Context() context.Context { return pin.ctx }

// Bind bounds the calls made on c until Unbind by ctx (see boundConn.bind).
func (p *Pool) Bind(c *Conn, ctx context.Context) (stop func() bool) {
	return c.bc.bind(ctx, p.readTimeout <= 0)
}

// Unbind ends a call bound by Bind (stop) or TakePinned (nil).
func (p *Pool) Unbind(c *Conn, stop func() bool) { c.bc.unbind(stop) }

// Limit returns when calls under ctx must end: the earlier of ctx's
// deadline and a bound set by Within.
func Limit(ctx context.Context) (time.Time, bool) { return limitOf(ctx) }

// Binds reports whether calls can be bound on dedicated connections at all
// (a binder: a single node, or a cluster whose node clients get the hook).
func (p *Pool) Binds() bool { return p.binder != nil }

// boundNode returns the node a call on key can be bound on: the client on a
// single node, the key's master on a cluster; nil when there is none (no
// binder, a cluster whose slot map was never read).
func (p *Pool) boundNode(ctx context.Context, key string) *redis.Client {
	b := p.binder
	if b == nil {
		return nil
	}
	if b.cc == nil {
		node, _ := p.redis.(*redis.Client)
		return node
	}
	if !b.ready.Load() {
		// MasterForKey would read the slot map on this call, bounded by
		// go-redis' timeouts rather than ctx.
		p.readSlots(key)
		return nil
	}
	node, err := b.cc.MasterForKey(ctx, key)
	if err != nil {
		return nil
	}
	b.hook(node)
	return node
}

// bind bounds the calls made until unbind by ctx: its deadline becomes the
// socket's; a bound set by Within that comes first is left to the sweeper
// (see soft.go). With cancel, its cancellation also cuts the socket's
// deadline to now (context.AfterFunc, a few allocations a call); without, a
// cancellation is seen at the deadline, as it is seen within ReadTimeout on
// an unbound call (see Pool.NeedsBound).
func (c *boundConn) bind(ctx context.Context, cancel bool) (stop func() bool) {
	deadline, ok := ctx.Deadline()
	if w := withinFirst(ctx, deadline, ok); w != nil {
		c.soft.Store(c.b.soft.mono(w.limit))
		c.b.soft.begin()
	} else if ok {
		c.limit.Store(deadline.UnixNano())
	}
	gen := c.gen.Add(1)
	if !cancel {
		return nil
	}
	return context.AfterFunc(ctx, func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.gen.Load() != gen {
			return // that call is over
		}
		now := time.Now()
		c.limit.Store(now.UnixNano())
		_ = c.Conn.SetDeadline(now)
		c.cut = true
	})
}

// unbind ends a bound call.
func (c *boundConn) unbind(stop func() bool) {
	soft := c.soft.Load() != 0
	if soft {
		// Under mu: a sweeper that found the call past its bound cuts
		// it before this, or not at all.
		c.mu.Lock()
		c.soft.Store(0)
		c.uncutLocked()
		c.mu.Unlock()
		c.b.soft.end()
	}
	if stop != nil && !stop() {
		// The cancellation ran or is running: wait for it, so that it
		// cannot cut the connection's next call.
		c.mu.Lock()
		c.gen.Add(1)
		c.uncutLocked()
		c.mu.Unlock()
	} else {
		c.gen.Add(1)
	}
	c.limit.Store(0)
}
