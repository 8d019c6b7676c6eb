// Package retry is how a client's waiting calls ride out failures that may
// pass (retry budgets, their back-off) and wait for a change published on
// a channel (Wait).
package retry

import (
	"context"
	"math/rand/v2"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson/internal/events"
	"github.com/goredisson/redisson/internal/hub"
	"github.com/goredisson/redisson/observe"
)

// Config says how a waiting call rides out a failure that may pass (a
// failover, a restart, a network blip) instead of ending its wait with the
// first failed try.
type Config struct {
	// Attempts is how many failed tries in a row are tried again; 0 turns
	// retrying off.
	Attempts int
	// Delay is the back-off's base: before retry n (from 0) a call sleeps
	// half plus a random part of the other half of min(Delay·2ⁿ, 2·Delay),
	// Redisson 3.48+'s EqualJitterDelay. Zero means 1 s.
	Delay time.Duration
}

// Policy is one client's retrying and waiting: its settings and what its
// retries and waits need of the client.
type Policy struct {
	cfg      Config
	redis    redis.UniversalClient
	hub      *hub.Hub
	events   *events.Sink
	lifetime context.Context
	watchdog time.Duration
	// retryable and closed are the client's classifier and sentinel
	// (core.Retryable, core.ErrClosed).
	retryable func(error) bool
	reason    func(error) observe.RetryReason
	closed    error
}

// Deps is what a Policy needs of its client.
type Deps struct {
	Redis  redis.UniversalClient
	Hub    *hub.Hub
	Events *events.Sink
	// Lifetime is done when the client closes.
	Lifetime context.Context
	// Watchdog is how often a wait tries without a message.
	Watchdog time.Duration
	// Retryable tells a failure that may pass; Closed is the error of a
	// closed client.
	Retryable func(error) bool
	Closed    error
	// Reason classifies a failure Retryable accepted, for events.
	Reason func(error) observe.RetryReason
}

// New returns the policy cfg for a client.
func New(cfg Config, d Deps) *Policy {
	return &Policy{cfg: cfg, redis: d.Redis, hub: d.Hub, events: d.Events, lifetime: d.Lifetime,
		watchdog: d.Watchdog, retryable: d.Retryable, reason: d.Reason, closed: d.Closed}
}

// Retry counts one waiting call's failed tries in a row. The zero value is
// not usable; get one from Policy.Budget. It is not safe for concurrent use.
// A value, so that the fast path of an acquire that needs no retry
// allocates nothing.
type Retry struct {
	p    *Policy
	n    int
	last error
	// kind and name name the object in observer events and logs.
	kind, name string
}

// Budget returns a fresh retry budget for one waiting call on the object
// kind/name (as errors name them), which its events and logs name.
func (p *Policy) Budget(kind, name string) Retry { return Retry{p: p, kind: kind, name: name} }

// On reports whether waiting calls retry at all.
func (p *Policy) On() bool { return p.cfg.Attempts > 0 }

// After reports whether the waiting call whose try failed with err should
// try again, and after how long. It says no when err cannot pass by
// itself (a reply about the key, a closed client), when ctx is done or the
// client closes (the caller reports that instead), and once the budget of
// tries in a row is spent. A connection failure on a cluster also asks the
// go-redis client to reload its slot map: after a failover it may point at
// the dead master until its next periodic reload, seconds away; a READONLY
// or CLUSTERDOWN says the same.
func (r *Retry) After(ctx context.Context, err error) (time.Duration, bool) {
	if err == nil || ctx.Err() != nil || r.p.lifetime.Err() != nil || !r.p.retryable(err) {
		return 0, false
	}
	if r.n >= r.p.cfg.Attempts {
		return 0, false
	}
	base := r.p.cfg.Delay
	if base <= 0 {
		base = time.Second
	}
	d := min(base<<min(r.n, 8), 2*base)
	half := d / 2
	d = max(half+rand.N(half+1), time.Millisecond)
	r.n++
	r.last = err
	if cc, ok := r.p.redis.(*redis.ClusterClient); ok {
		cc.ReloadState(ctx)
	}
	r.p.events.Logger().Warn("redisson: a try failed for a reason that may pass; trying again",
		"attempt", r.n, "of", r.p.cfg.Attempts, "in", d, "err", err,
		events.AttrKind, string(events.ObserveKind(r.kind)), events.AttrName, r.name, events.AttrReason, string(r.p.reason(err)))
	if o := r.p.events.Observer(); o != nil && o.Retry != nil {
		o.Retry(ctx, observe.Retry{Kind: events.ObserveKind(r.kind), Name: r.name, Reason: r.p.reason(err), Attempt: r.n, Delay: d, Err: err})
	}
	return d, true
}

// Reset starts a new streak: a try got an answer.
func (r *Retry) Reset() { r.n, r.last = 0, nil }

// Err returns the error of the streak's last failed try, nil when the last
// try got an answer: a wait that runs out while retrying reports it instead
// of "not acquired", since nobody could tell whether the object was free.
func (r *Retry) Err() error { return r.last }

// Subscribe subscribes a waiting call to channel through the hub, riding
// out failures that may pass with r, the call's retry budget: a
// subscription that is not confirmed in time (ConfirmTimeout) during an
// outage is tried again after a back-off. ctx bounds it all (the caller's
// wait included); the hub's errors are returned as they are.
func (r *Retry) Subscribe(ctx context.Context, channel string, policy hub.WakePolicy) (*hub.Waiter, error) {
	return r.subscribe(ctx, channel, policy, true)
}

// SubscribeOnce is Subscribe without riding out failures: the first one
// ends it.
func (r *Retry) SubscribeOnce(ctx context.Context, channel string, policy hub.WakePolicy) (*hub.Waiter, error) {
	return r.subscribe(ctx, channel, policy, false)
}

func (r *Retry) subscribe(ctx context.Context, channel string, policy hub.WakePolicy, retry bool) (*hub.Waiter, error) {
	var start time.Time
	if r.p.events.Observer() != nil {
		start = time.Now()
	}
	for {
		sub, err := r.p.hub.Subscribe(ctx, channel, policy)
		if err == nil {
			if r.p.events.Observer() != nil {
				r.p.events.Subscribed(ctx, r.kind, r.name, channel, start, nil)
			}
			return sub, nil
		}
		d, again := time.Duration(0), false
		if retry {
			d, again = r.After(ctx, err)
		}
		if !again {
			if r.p.events.Observer() != nil {
				r.p.events.Subscribed(ctx, r.kind, r.name, channel, start, err)
			}
			return nil, err
		}
		t := time.NewTimer(d)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			if r.p.events.Observer() != nil {
				r.p.events.Subscribed(ctx, r.kind, r.name, channel, start, err)
			}
			return nil, err
		case <-r.p.lifetime.Done():
			t.Stop()
			if r.p.events.Observer() != nil {
				r.p.events.Subscribed(ctx, r.kind, r.name, channel, start, err)
			}
			return nil, err
		}
	}
}
