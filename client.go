package redisson

import (
	"context"
	"errors"
	"sync"

	"github.com/google/uuid"
	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson/fairlock"
	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/internal/engine"
	"github.com/goredisson/redisson/internal/eviction"
	"github.com/goredisson/redisson/internal/handle"
	"github.com/goredisson/redisson/internal/retry"
	"github.com/goredisson/redisson/latch"
	"github.com/goredisson/redisson/ratelimit"
	"github.com/goredisson/redisson/rlock"
	"github.com/goredisson/redisson/rwlock"
	"github.com/goredisson/redisson/semaphore"
	"github.com/goredisson/redisson/source"
)

// Client hands out Redisson-compatible locks and synchronizers over one
// go-redis client. It owns one pub/sub hub and one renewal wheel shared by all
// its objects. Create it with New and Close it when done; the go-redis
// client stays the caller's.
type Client struct {
	rt        *core.Runtime
	src       *source.Source // rt and its lock engine, for the objects' constructors
	opts      Options
	closeOnce sync.Once
	// unregister stops the client's registration (see Options.Registration).
	unregister func()
	// unobserve ends the observer's reading of the client's load.
	unobserve func()
}

// New returns a Client over rdb: a *redis.Client (single node, or a Sentinel
// failover client) or a *redis.ClusterClient. With PublishAuto on a cluster
// it asks the server whether sharded pub/sub works, as Redisson does.
//
// On a *redis.Client, New adds a dial hook to rdb (it stays after Close,
// doing nothing then): connections rdb dials from then on can have their
// deadlines pulled in by a call whose context ends before go-redis'
// ReadTimeout, which bounds such a call without a goroutine (see
// docs/ownership.md). Create the Client before rdb's first commands, so that
// its connections have the hook. On a *redis.ClusterClient it adds the hook
// to every node client: through OnNewNode to nodes made from then on, and
// to nodes made before when a call first goes to them; a connection such a
// node dialled before is closed (QUIT) when first set aside, and the pool
// dials a hooked one.
func New(rdb redis.UniversalClient, opts ...Option) (*Client, error) {
	if rdb == nil {
		return nil, errors.New("redisson: New needs a Redis client")
	}
	var o Options
	for _, opt := range opts {
		opt(&o)
	}
	if err := o.applyDefaults(); err != nil {
		return nil, err
	}
	_, cluster := rdb.(*redis.ClusterClient)
	sharded, err := shardedPubSub(rdb, cluster, o)
	if err != nil {
		return nil, err
	}
	rt := core.New(core.Config{
		Redis:           rdb,
		ID:              uuid.NewString(),
		WatchdogTimeout: o.WatchdogTimeout,
		Timeout:         o.Timeout,
		Sharded:         sharded,
		Cluster:         cluster,
		BatchSize:       o.RenewalBatchSize,
		LeaseMargin:     o.LeaseMargin,
		Logger:          o.Logger,
		// Every client on a fair lock must agree on it (Options).
		FairLockWaitTimeout: o.FairLockWaitTimeout,
		Retry:               retryConfig(o.Retry),
		Observer:            o.Observer,
		CleanUp: eviction.Config{
			MinDelay: o.CleanUp.MinDelay, MaxDelay: o.CleanUp.MaxDelay, KeysLimit: o.CleanUp.KeysAmount,
		},
		Sync: core.ReplicaSync{
			Enabled:      !o.ReplicaSync.Disabled,
			Timeout:      o.ReplicaSync.Timeout,
			FailOnNoSync: !o.ReplicaSync.AllowUnsynced,
		},
	})
	c := &Client{rt: rt, src: (*source.Source)(handle.New(rt, engine.New(rt))), opts: o}
	c.unregister = startRegistration(rt, o)
	c.unobserve = registerObserver(c)
	return c, nil
}

// retryConfig turns RetryOptions, defaults applied, into the runtime's.
func retryConfig(r RetryOptions) retry.Config {
	if r.Disabled {
		return retry.Config{}
	}
	return retry.Config{Attempts: r.Attempts, Delay: r.Delay}
}

// shardedPubSub decides PublishAuto: sharded only on a cluster that answers
// PUBSUB SHARDNUMSUB (Redis 7+), as Redisson 3.29+ probes it.
func shardedPubSub(rdb redis.UniversalClient, cluster bool, o Options) (bool, error) {
	switch o.PublishMode {
	case PublishPlain:
		return false, nil
	case PublishSharded:
		return true, nil
	}
	if !cluster {
		return false, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), o.Timeout)
	defer cancel()
	err := rdb.PubSubShardNumSub(ctx).Err()
	if err == nil {
		return true, nil
	}
	var re redis.Error
	if errors.As(err, &re) {
		return false, nil
	}
	return false, err
}

// ID returns the client id: the UUID in every hash field "<id>:<owner>" this
// client writes, Redisson's per-client id.
func (c *Client) ID() string { return c.rt.ID() }

// Options returns the client's settings with defaults filled in.
func (c *Client) Options() Options { return c.opts }

// Sharded reports whether the client publishes with SPUBLISH and subscribes
// with SSUBSCRIBE.
func (c *Client) Sharded() bool { return c.rt.PublishCommand() == "SPUBLISH" }

// Redis returns the go-redis client this Client works over.
func (c *Client) Redis() redis.UniversalClient { return c.rt.Redis() }

// Source returns the client's handle that every object package's
// constructor takes (rlock.New(c.Source(), name), queue.NewQueue[T](...),
// ...); the methods and functions below are those constructors spelled
// shorter. nil for a nil Client.
func (c *Client) Source() *source.Source {
	if c == nil {
		return nil
	}
	return c.src
}

// Lock returns the reentrant lock called name (Redisson's getLock). The
// handle is cheap and safe for concurrent use.
func (c *Client) Lock(name string) *rlock.Lock { return rlock.New(c.Source(), name) }

// FairLock returns the fair lock called name (Redisson's getFairLock):
// waiters get it in the order they asked, across processes. The handle is
// cheap and safe for concurrent use.
func (c *Client) FairLock(name string) *fairlock.Lock { return fairlock.New(c.Source(), name) }

// SpinLock returns the spin lock called name (Redisson's getSpinLock): the
// lock's hash without pub/sub, whose waiters poll with a back-off
// (rlock.WithBackOff; Redisson's exponential default otherwise). The handle
// is cheap and safe for concurrent use.
func (c *Client) SpinLock(name string, opts ...rlock.SpinOption) *rlock.SpinLock {
	return rlock.NewSpin(c.Source(), name, opts...)
}

// NonReentrantLock returns the non-reentrant lock called name (Redisson
// 4's getNonReentrantLock): its holder's second acquisition fails with
// ErrNonReentrant. The handle is cheap and safe for concurrent use.
func (c *Client) NonReentrantLock(name string) *rlock.NonReentrantLock {
	return rlock.NewNonReentrant(c.Source(), name)
}

// NonReentrantFairLock returns the non-reentrant fair lock called name
// (Redisson 4's getNonReentrantFairLock): a fair lock whose holder's
// second acquisition fails with ErrNonReentrant. The handle is cheap and
// safe for concurrent use.
func (c *Client) NonReentrantFairLock(name string) *fairlock.NonReentrantLock {
	return fairlock.NewNonReentrant(c.Source(), name)
}

// Semaphore returns the semaphore called name (Redisson's getSemaphore).
// The handle is cheap and safe for concurrent use.
func (c *Client) Semaphore(name string) *semaphore.Semaphore { return semaphore.New(c.Source(), name) }

// PermitExpirableSemaphore returns the permit-expirable semaphore called
// name (Redisson's getPermitExpirableSemaphore): permits with ids and
// leases. The handle is cheap and safe for concurrent use.
func (c *Client) PermitExpirableSemaphore(name string) *semaphore.ExpirableSemaphore {
	return semaphore.NewExpirable(c.Source(), name)
}

// RateLimiter returns the rate limiter called name (Redisson's
// getRateLimiter). The handle is cheap and safe for concurrent use.
func (c *Client) RateLimiter(name string) *ratelimit.Limiter { return ratelimit.New(c.Source(), name) }

// CountDownLatch returns the count-down latch called name (Redisson's
// getCountDownLatch). The handle is cheap and safe for concurrent use.
func (c *Client) CountDownLatch(name string) *latch.Latch { return latch.New(c.Source(), name) }

// ReadWriteLock returns the read-write lock called name (Redisson's
// getReadWriteLock). The handle is cheap and safe for concurrent use.
func (c *Client) ReadWriteLock(name string) *rwlock.ReadWriteLock {
	return rwlock.New(c.Source(), name)
}

// Stats describes the client's shared runtime.
type Stats struct {
	// Leases is the number of leases on the renewal wheel.
	Leases int
	// PubSub is the subscription hub's load.
	PubSub PubSubStats
	// Renewal counts the watchdog's work since New.
	Renewal RenewalStats
}

// PubSubStats is the subscription hub's load.
type PubSubStats struct {
	// Connections is the number of Redis connections carrying
	// subscriptions.
	Connections int
	// Channels is the number of subscribed channels.
	Channels int
	// Waiters is the number of goroutines waiting on them.
	Waiters int
	// Topics is the number of open topic subscriptions (package pubsub);
	// they ride the same connections.
	Topics int
	// TopicDropped counts topic messages dropped since New because a
	// subscription's buffer was full.
	TopicDropped uint64
}

// RenewalStats count the watchdog's work.
type RenewalStats struct {
	// Rounds counts renewal pipelines sent (at most one per wheel tick).
	Rounds uint64
	// Scripts counts renewal script calls (one per slot and batch).
	Scripts uint64
	// Renewed counts lease renewals that succeeded.
	Renewed uint64
	// Lost counts watchdog leases that ended without a release (key gone,
	// lease ran out before it could be renewed).
	Lost uint64
	// Expired counts fixed leases that ran out (no watchdog, or a hold
	// Extend fixed).
	Expired uint64
	// Errors counts renewal script calls that failed and were retried.
	Errors uint64
}

// Stats returns the client's current load.
func (c *Client) Stats() Stats {
	ps := c.rt.Hub().Stats()
	rs := c.rt.Wheel().Stats()
	return Stats{
		Leases:  c.rt.Wheel().Len(),
		PubSub:  PubSubStats{Connections: ps.Connections, Channels: ps.Channels, Waiters: ps.Waiters, Topics: ps.Listeners, TopicDropped: ps.Dropped},
		Renewal: RenewalStats{Rounds: rs.Rounds, Scripts: rs.Scripts, Renewed: rs.Renewed, Lost: rs.Lost, Expired: rs.Expired, Errors: rs.Errors},
	}
}

// Close stops renewals and subscriptions; waiting calls return ErrClosed and
// holders' contexts end with cause ErrClosed. Locks still held are not
// released: they expire with their lease, as when a Redisson client shuts
// down. Close is idempotent and does not close the go-redis client.
//
// A semaphore acquire still on its way to Redis (its caller may have left
// already) would lose its permits for good if the go-redis client closed
// under it, so Close waits for such acquires and gives back the permits
// they took, for at most go-redis' ReadTimeout (or, without one, Options.
// Timeout) plus the replica sync timeout when sync is on, plus
// Options.Timeout. When Redis does not answer within that, Close logs an
// error and returns. Nothing is sent on behalf of those acquires after
// Close returns, so the go-redis client may be closed right after.
func (c *Client) Close() error {
	c.closeOnce.Do(func() {
		// Holds end with ErrClosed first: deleting the registration
		// record below may wait out Options.Timeout when Redis is down,
		// and a lease must not run out meanwhile.
		c.rt.Closing()
		c.unobserve()
		c.unregister()
		c.rt.Close()
	})
	return nil
}

// NewOwnerID returns a fresh random owner id (positive): one per Java
// thread it stands for. Pass it to the objects' WithOwner options to re-enter
// locks or to take several locks as one owner.
func NewOwnerID() int64 { return core.NewOwnerID() }
