// Package holds records what one client holds: per lock key and owner, the
// lease on the renewal wheel and the Hold values handed to the holder.
package holds

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/goredisson/redisson/internal/events"
	"github.com/goredisson/redisson/internal/renewal"
	"github.com/goredisson/redisson/observe"
)

// Registry tracks what this client holds: per lock key and owner field, the
// lease on the renewal wheel and the Hold values handed to the holder. Every
// lock handle of the client shares it, so two handles for one name renew and
// release the same hold.
type Registry struct {
	wheel  *renewal.Wheel
	events *events.Sink
	logger *slog.Logger
	causes Causes

	mu     sync.Mutex
	m      map[holdKey]*owned
	owners map[string]int // owners holding each key
	closed bool           // the client closed: no new holds
	// changed gets a token (never blocking) when an owner record is
	// created or removed, for whoever publishes what this client holds.
	changed chan struct{}
	armed   bool // signal drops a token (see HeldChanged)
}

// Causes are the errors holds end with (the client's sentinels, package
// core).
type Causes struct {
	Closed       error // the client closed
	LockLost     error // ownership lost against the holder's will
	LeaseExpired error // a fixed lease ran out
	// Object names the object in a cause: `<kind> "<name>": <err>`.
	Object func(kind, name string, err error) error
}

// New returns an empty registry whose leases go on wheel.
func New(wheel *renewal.Wheel, sink *events.Sink, causes Causes) *Registry {
	return &Registry{wheel: wheel, events: sink, logger: sink.Logger(), causes: causes}
}

type holdKey struct{ key, owner string }

// owned is what one owner holds of one key: one lease for all its holds.
type owned struct {
	key, owner string
	object     string
	since      time.Time // when the owner's first hold was asked for
	ttl        time.Duration
	renews     bool // the lease is a watchdog's (renewed), not a fixed one
	kind       renewal.Kind
	lease      *renewal.Lease
	holds      []*Hold
	holdBuf    [1]*Hold // holds' storage for the usual single hold
	onEnd      func(cause error)
	gen        uint64 // bumped with every new lease; a stale lease's OnLost is ignored
	// writes counts the lease writes recorded here (acquires, partial
	// releases): an extend applies its lease only if none came between
	// its send and its reply (see Extending).
	writes uint64
	// cap bounds the lease for good (zero: no bound): an extend that got
	// no reply may still run, after anything sent since. pending is the
	// extend in flight, whose end bounds the lease until its outcome is in.
	cap     time.Time
	pending *Extension
}

// kindName is the object's kind as errors and logs name it.
func (o *owned) kindName() string {
	if o.object == "" {
		return "lock"
	}
	return o.object
}

// lost is the cause the owner's holds end with when ownership is lost:
// `<kind> "<key>": ownership lost: <why>`, wrapping ErrLockLost and why.
func (o *owned) lost(c *Causes, why error) error {
	return c.Object(o.kindName(), o.key, fmt.Errorf("%w: %w", c.LockLost, why))
}

// ended is the cause the owner's holds end with when the wheel says why
// the lease ended: a lease nobody was to renew (a fixed lease, or one an
// extend fixed) that ran out ended as asked, with ErrLeaseExpired, not
// ErrLockLost; anything else is a loss. hs.mu held.
func (o *owned) ended(c *Causes, why error) error {
	if errors.Is(why, renewal.ErrFixedLeaseEnded) {
		return c.Object(o.kindName(), o.key, fmt.Errorf("%w (a fixed lease, not renewed)", c.LeaseExpired))
	}
	return o.lost(c, why)
}

// releasing reports whether a release of one of o's holds is under way.
// hs.mu held.
func (o *owned) releasing() bool {
	for _, h := range o.holds {
		if h.Releasing() {
			return true
		}
	}
	return false
}

// Hold is one acquisition: the value a caller keeps to release it and to
// learn that ownership ended. Its context is done when the hold ends: after
// its release (cause context.Canceled), when its fixed lease ran out
// (ErrLeaseExpired), when ownership is lost (ErrLockLost) or when the
// client closes (ErrClosed).
type Hold struct {
	ctx    context.Context
	cancel context.CancelCauseFunc
	key    string
	owner  string
	// releasing is set by the first release call, so that a second one
	// sends nothing.
	releasing atomic.Bool
	// start is when the hold was acquired, in ns since the runtime's
	// epoch (monotonic; 8 bytes keep the hold in its size class), set
	// only while something observes: its end is reported then, once
	// (holdEnded takes it). Atomic: a hold passed on is stamped when its
	// waiter takes it (Taken), while the registry may be ending it.
	start atomic.Int64
}

// Key returns the lock key.
func (h *Hold) Key() string { return h.key }

// OwnerField returns the owner field "<client id>:<owner id>".
func (h *Hold) OwnerField() string { return h.owner }

// Context returns the hold's context.
func (h *Hold) Context() context.Context { return h.ctx }

// Done is closed when the hold ends.
func (h *Hold) Done() <-chan struct{} { return h.ctx.Done() }

// Err returns nil while the hold lasts, then why it ended.
func (h *Hold) Err() error {
	if h.ctx.Err() == nil {
		return nil
	}
	return context.Cause(h.ctx)
}

// BeginRelease reports whether this is the hold's first release call.
func (h *Hold) BeginRelease() bool { return h.releasing.CompareAndSwap(false, true) }

// CancelRelease undoes BeginRelease after Redis refused the release before
// it ran (Refused): the hold is its owner's again, to release once Redis
// accepts.
func (h *Hold) CancelRelease() { h.releasing.Store(false) }

// Releasing reports whether a release of the hold was called.
func (h *Hold) Releasing() bool { return h.releasing.Load() }

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
	// Object is the object's kind as errors name it ("lock", "read lock"):
	// a lost hold's cause starts with it and the key.
	Object string
	// OnEnd, if set on the owner's first hold, is called once when the
	// owner's holds end: cause context.Canceled for an unlock,
	// ErrLeaseExpired or ErrLockLost (wrapped), or ErrClosed otherwise. It
	// must not block.
	OnEnd func(cause error)
}

// Acquired records a successful acquisition in h. h's context keeps the
// values of parent but not its cancellation: it is done when the hold ends,
// with cause ErrLeaseExpired when its fixed lease ran out, ErrLockLost when
// ownership is lost and ErrClosed when the client closes.
func (r *Registry) Acquired(parent context.Context, h *Hold, a Acquire) {
	h.ctx, h.cancel = context.WithCancelCause(context.WithoutCancel(parent))
	h.key, h.owner = a.Key, a.Owner
	if r.events.On(parent) {
		h.start.Store(r.events.Stamp())
	}

	hs := r
	hs.mu.Lock()
	if hs.closed {
		hs.mu.Unlock()
		h.cancel(r.causes.Closed)
		return
	}
	if hs.m == nil {
		hs.m = make(map[holdKey]*owned)
		hs.owners = make(map[string]int)
	}
	hk := holdKey{a.Key, a.Owner}
	o := hs.m[hk]
	var stale *owned
	if o != nil && o.lease != nil && !r.wheel.Cancel(o.lease) {
		// The owner's lease was lost just now (its loss is being reported,
		// and would be ignored once this acquisition replaces the lease):
		// its earlier holds end as lost, and this acquisition starts a
		// new record.
		stale = o
		delete(hs.m, hk)
		hs.owners[a.Key]--
		o = nil
	}
	var staleCause error
	if stale != nil {
		why := renewal.ErrLeaseExpired
		if !stale.renews {
			why = renewal.ErrFixedLeaseEnded
		}
		staleCause = stale.ended(&r.causes, why)
	}
	defer func() {
		hs.mu.Unlock()
		if stale != nil {
			r.endHolds(stale, staleCause)
		}
	}()
	if o == nil {
		o = &owned{key: a.Key, owner: a.Owner, object: a.Object, since: a.Start, onEnd: a.OnEnd}
		o.holds = o.holdBuf[:0]
		hs.m[hk] = o
		hs.owners[a.Key]++
		hs.signal()
	}
	o.ttl, o.renews, o.kind = a.TTL, a.Kind != nil, a.Kind
	o.writes++
	r.track(o, a.Start)
	o.holds = append(o.holds, h)
}

// track puts o's lease, of o.ttl from start, on the wheel under a new
// generation. hs.mu held.
func (r *Registry) track(o *owned, start time.Time) {
	o.gen++
	gen := o.gen
	kind := o.kind
	if !o.renews {
		kind = nil // an extend fixed the lease: it stays fixed
	}
	o.lease = r.wheel.Add(renewal.Spec{
		Key:   o.key,
		Owner: o.owner,
		Kind:  kind,
		TTL:   o.ttl,
		Start: start,
		Cap:   o.capUntil(),
		OnLost: func(why error) {
			r.leaseEnded(o, gen, why)
		},
	})
}

// leaseEnded is the wheel telling why the lease of generation gen of o
// ended. A lease the owner's own release overtook is no loss: the renewal
// sent before the release reached Redis after it and found the lock
// released or handed on, and the release's reply, on its way, ends the
// holds as released. Until then the lease is watched again, so that a
// release that does not end them (Redis refused it) still lets the next
// renewal tell a real loss. Only a real loss is logged, naming the object.
func (r *Registry) leaseEnded(o *owned, gen uint64, why error) {
	hs := r
	hs.mu.Lock()
	if o.gen != gen || hs.m[holdKey{o.key, o.owner}] != o {
		hs.mu.Unlock()
		return
	}
	if errors.Is(why, renewal.ErrKeyGone) && o.releasing() && !hs.closed {
		r.track(o, time.Now())
		hs.mu.Unlock()
		return
	}
	cause := o.ended(&r.causes, why)
	kind := o.kindName()
	hs.mu.Unlock()
	if !errors.Is(cause, r.causes.LeaseExpired) {
		r.logger.Warn("redisson: ownership lost; the holder's context is done",
			events.AttrKind, string(events.ObserveKind(kind)), events.AttrName, o.key, "owner", o.owner, "err", why)
	}
	r.lose(o, cause)
}

// LeaseOf returns the lease the owner last took the lock with (Redisson
// re-applies it on a partial unlock), or def when the owner holds nothing here.
func (r *Registry) LeaseOf(key, owner string, def time.Duration) time.Duration {
	hs := r
	hs.mu.Lock()
	defer hs.mu.Unlock()
	if o := hs.m[holdKey{key, owner}]; o != nil {
		return o.ttl
	}
	return def
}

// HoldDepth returns how many holds of key the owner has through this client
// (its re-entries), 0 when it holds nothing.
func (r *Registry) HoldDepth(key, owner string) int {
	hs := r
	hs.mu.Lock()
	defer hs.mu.Unlock()
	if o := hs.m[holdKey{key, owner}]; o != nil {
		return len(o.holds)
	}
	return 0
}

// HeldLocally reports whether any owner holds key through this client.
func (r *Registry) HeldLocally(key string) bool {
	hs := r
	hs.mu.Lock()
	defer hs.mu.Unlock()
	return hs.owners[key] > 0
}

// Holding reports whether the owner holds key through this client.
func (r *Registry) Holding(key, owner string) bool {
	hs := r
	hs.mu.Lock()
	defer hs.mu.Unlock()
	return hs.m[holdKey{key, owner}] != nil
}

// HoldingLike reports whether an owner field starting with prefix, other
// than except, holds key through this client (the group multi-lock's
// owner identities "<owner>|<value set>" of one owner).
func (r *Registry) HoldingLike(key, prefix, except string) bool {
	hs := r
	hs.mu.Lock()
	defer hs.mu.Unlock()
	if hs.owners[key] == 0 {
		return false
	}
	for hk := range hs.m {
		if hk.key == key && hk.owner != except && strings.HasPrefix(hk.owner, prefix) {
			return true
		}
	}
	return false
}

// HeldByOther reports whether an owner other than owner holds key through
// this client.
func (r *Registry) HeldByOther(key, owner string) bool {
	hs := r
	hs.mu.Lock()
	defer hs.mu.Unlock()
	n := hs.owners[key]
	return n > 1 || (n == 1 && hs.m[holdKey{key, owner}] == nil)
}

// Released records the release of h. full says the lock is gone (every hold
// of the owner ends); otherwise only h ends and the lease, re-applied by the
// script at start, runs on.
func (r *Registry) Released(h *Hold, full bool, start time.Time) {
	r.released(h, full, false, start)
}

// ReleasedShared records the release of h when Redis says only that the
// lock stays held, not whether by this owner (a read lock's other readers
// keep it): h ends, and if it was the owner's last local hold the owner's
// record ends as released. The owner's own count in Redis has then reached
// 0, the usual case, or holds a surplus nobody here will release; either
// way renewal stops and anything left expires with its lease, as after
// Released, but without the surplus warning, which would fire on every
// read unlock while another reader holds.
func (r *Registry) ReleasedShared(h *Hold, start time.Time) {
	r.released(h, false, true, start)
}

func (r *Registry) released(h *Hold, full, shared bool, start time.Time) {
	hs := r
	hs.mu.Lock()
	o := hs.m[holdKey{h.key, h.owner}]
	if o == nil {
		hs.mu.Unlock()
		h.cancel(context.Canceled)
		return
	}
	object := o.object
	mine := false
	for _, x := range o.holds {
		mine = mine || x == h
	}
	if !mine {
		// h had already ended (lost) and the owner acquired again: h's
		// release reached the newer holds in Redis. They are lost, not
		// released by their own Unlock.
		hs.mu.Unlock()
		h.cancel(context.Canceled)
		if full {
			r.lose(o, o.lost(&r.causes, errors.New("released by an earlier, lost hold of the same owner")))
		}
		return
	}
	if full {
		hs.mu.Unlock()
		r.lose(o, context.Canceled)
		return
	}
	for i, x := range o.holds {
		if x == h {
			o.holds = append(o.holds[:i], o.holds[i+1:]...)
			break
		}
	}
	h.cancel(context.Canceled)
	if h.start.Load() != 0 {
		defer r.holdEnded(h, object, context.Canceled)
	}
	if len(o.holds) == 0 {
		// Redis still counts holds of the owner that we never handed out:
		// stop renewing, so the surplus expires with the lease instead of
		// living forever. A shared release cannot tell a surplus from the
		// usual case (the owner holds nothing more, others do), so it ends
		// the record the same way, without a warning.
		hs.mu.Unlock()
		if !shared {
			r.logger.Warn("redisson: lock still held after the last local hold was released; letting it expire",
				"lock", h.key, "owner", h.owner)
		}
		r.lose(o, context.Canceled)
		return
	}
	o.writes++
	r.wheel.Reset(o.lease, start, o.ttl)
	hs.mu.Unlock()
}

// PassOn makes to the next hold of from's owner record in place of from,
// which ends as released: to takes from's key and owner field, and the
// record's lease runs on untouched on the wheel, so to's loss is signalled
// exactly when from's would have been. to's context keeps the values of
// parent. Nothing is sent: Redis keeps counting one hold of the same field.
//
// It reports false, changing nothing, unless from is its owner's only hold,
// on a watchdog lease of ttl with no extension in flight or bound (a fixed
// lease's remaining time is not what to asked for), and the client is open.
func (r *Registry) PassOn(parent context.Context, from, to *Hold, ttl time.Duration) bool {
	hs := r
	hs.mu.Lock()
	o := hs.m[holdKey{from.key, from.owner}]
	if hs.closed || o == nil || len(o.holds) != 1 || o.holds[0] != from || o.lease == nil ||
		!o.renews || o.ttl != ttl || !o.cap.IsZero() || o.pending != nil {
		hs.mu.Unlock()
		return false
	}
	to.ctx, to.cancel = context.WithCancelCause(context.WithoutCancel(parent))
	to.key, to.owner = from.key, from.owner
	// to's start is stamped when its waiter takes it (Taken): a waiter
	// that left reported failure, and its hold's end goes unreported.
	o.holds[0] = to
	o.since = time.Now()
	// The record's holder changed: whoever publishes what this client
	// holds reads it again.
	hs.signal()
	object := o.object
	hs.mu.Unlock()
	from.cancel(context.Canceled)
	r.holdEnded(from, object, context.Canceled)
	return true
}

// Taken stamps the start of h, a hold PassOn gave a waiter that has now
// taken it (its acquisition succeeds), so that its end is reported. One
// lost in between is reported ended at once; one the client's Close ended
// is not, as the acquisition then fails with ErrClosed. object is the kind
// errors name (Acquire.Object).
func (r *Registry) Taken(parent context.Context, h *Hold, object string) {
	if !r.events.On(parent) {
		return
	}
	hs := r
	hs.mu.Lock()
	o := hs.m[holdKey{h.key, h.owner}]
	live := o != nil && slices.Contains(o.holds, h)
	cause := context.Cause(h.ctx)
	report := !live && cause != nil && !errors.Is(cause, r.causes.Closed)
	if live || report {
		h.start.Store(r.events.Stamp())
	}
	hs.mu.Unlock()
	if report {
		r.holdEnded(h, object, cause)
	}
}

// Abandon ends the owner's holds of key: renewal stops, so the lock expires
// with its lease if it is still there (an unlock whose outcome is unknown,
// Redis saying the owner holds nothing).
func (r *Registry) Abandon(key, owner string, cause error) {
	hs := r
	hs.mu.Lock()
	o := hs.m[holdKey{key, owner}]
	hs.mu.Unlock()
	if o != nil {
		r.lose(o, cause)
	}
}

// Lost ends every local hold of key, e.g. after a force unlock.
func (r *Registry) Lost(key string, cause error) {
	hs := r
	hs.mu.Lock()
	var all []*owned
	if hs.owners[key] > 0 {
		for hk, o := range hs.m {
			if hk.key == key {
				all = append(all, o)
			}
		}
	}
	hs.mu.Unlock()
	for _, o := range all {
		r.lose(o, cause)
	}
}

// LoseAll ends every hold with cause and refuses new ones (Close).
func (r *Registry) LoseAll(cause error) {
	hs := r
	hs.mu.Lock()
	hs.closed = true
	all := make([]*owned, 0, len(hs.m))
	for _, o := range hs.m {
		all = append(all, o)
	}
	hs.mu.Unlock()
	for _, o := range all {
		r.lose(o, cause)
	}
}

// HoldCount returns how many (key, owner) pairs this client holds (tests,
// stats).
func (r *Registry) HoldCount() int {
	hs := r
	hs.mu.Lock()
	defer hs.mu.Unlock()
	return len(hs.m)
}

// lose ends an owner's holds: its lease leaves the wheel and its holds'
// contexts are cancelled with cause (context.Canceled for a release).
func (r *Registry) lose(o *owned, cause error) {
	hs := r
	hs.mu.Lock()
	hk := holdKey{o.key, o.owner}
	if hs.m[hk] != o {
		hs.mu.Unlock()
		return
	}
	delete(hs.m, hk)
	if hs.owners[o.key]--; hs.owners[o.key] <= 0 {
		delete(hs.owners, o.key)
	}
	hs.signal()
	lease := o.lease
	hs.mu.Unlock()
	if lease != nil {
		r.wheel.Cancel(lease)
	}
	r.endHolds(o, cause)
}

// endHolds cancels the holds of o, which is out of the registry, with
// cause and tells its object. hs.mu must not be held.
func (r *Registry) endHolds(o *owned, cause error) {
	r.mu.Lock()
	holds := o.holds
	o.holds = nil
	r.mu.Unlock()
	for _, h := range holds {
		h.cancel(cause)
		if h.start.Load() != 0 {
			r.holdEnded(h, o.object, cause)
		}
	}
	if o.onEnd != nil {
		o.onEnd(cause)
	}
}

// holdEnded reports the end of hold h of the object kind (as errors name
// it) with cause.
func (r *Registry) holdEnded(h *Hold, kind string, cause error) {
	start := h.start.Swap(0)
	if start == 0 {
		return // acquired while nothing observed, reported, or unreported
	}
	end := observe.Lost
	switch {
	case errors.Is(cause, context.Canceled):
		end = observe.Released
	case errors.Is(cause, r.causes.Closed):
		end = observe.Closed
	case errors.Is(cause, r.causes.LeaseExpired):
		end = observe.Expired
	}
	r.events.HoldEnded(h.ctx, kind, h.key, start, end, cause)
}
