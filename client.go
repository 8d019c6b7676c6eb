package redisson

import (
	"context"
	"errors"
	"sync"

	"github.com/google/uuid"
	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/internal/renewal"
	"github.com/goredisson/redisson/pubsub"
	"github.com/goredisson/redisson/rlock"
)

// Client hands out Redisson-compatible locks and synchronizers over one
// go-redis client. It owns one pub/sub hub and one renewal wheel shared by all
// its objects. Create it with New and Close it when done; the go-redis
// client stays the caller's.
type Client struct {
	rt        *core.Runtime
	opts      Options
	closeOnce sync.Once
}

// New returns a Client over rdb: a *redis.Client (single node, or a Sentinel
// failover client) or a *redis.ClusterClient. With PublishAuto on a cluster
// it asks the server whether sharded pub/sub works, as Redisson does.
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
	rt := &core.Runtime{
		Redis:           rdb,
		ID:              uuid.NewString(),
		WatchdogTimeout: o.WatchdogTimeout,
		Timeout:         o.Timeout,
		PublishCommand:  "PUBLISH",
		Cluster:         cluster,
		Logger:          o.Logger,
		Sync: &core.ReplicaSync{
			Enabled:      !o.ReplicaSync.Disabled,
			Timeout:      o.ReplicaSync.Timeout,
			FailOnNoSync: !o.ReplicaSync.AllowUnsynced,
		},
	}
	if sharded {
		rt.PublishCommand = "SPUBLISH"
	}
	rt.Init()
	rt.Hub = pubsub.New(pubsub.Config{Client: rdb, Sharded: sharded, Logger: o.Logger})
	var slot func(string) int
	if cluster {
		slot = core.Slot
	}
	rt.Wheel = renewal.New(renewal.Config{
		Client:    rdb,
		BatchSize: o.RenewalBatchSize,
		Timeout:   o.Timeout,
		Slot:      slot,
		Logger:    o.Logger,
	})
	return &Client{rt: rt, opts: o}, nil
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
func (c *Client) ID() string { return c.rt.ID }

// Options returns the client's settings with defaults filled in.
func (c *Client) Options() Options { return c.opts }

// Sharded reports whether the client publishes with SPUBLISH and subscribes
// with SSUBSCRIBE.
func (c *Client) Sharded() bool { return c.rt.PublishCommand == "SPUBLISH" }

// Redis returns the go-redis client this Client works over.
func (c *Client) Redis() redis.UniversalClient { return c.rt.Redis }

// Lock returns the reentrant lock called name (Redisson's getLock). The
// handle is cheap and safe for concurrent use.
func (c *Client) Lock(name string) *rlock.Lock { return rlock.New(c.rt, name) }

// Stats describes the client's shared runtime.
type Stats struct {
	// Leases is the number of leases on the renewal wheel.
	Leases int
	// PubSub is the hub's load.
	PubSub pubsub.Stats
	// Renewal counts the watchdog's work.
	Renewal renewal.Stats
}

// Stats returns the client's current load.
func (c *Client) Stats() Stats {
	return Stats{Leases: c.rt.Wheel.Len(), PubSub: c.rt.Hub.Stats(), Renewal: c.rt.Wheel.Stats()}
}

// Close stops renewals and subscriptions; waiting calls return ErrClosed and
// holders' contexts end with cause ErrClosed. Locks still held are not
// released: they expire with their lease, as when a Redisson client shuts
// down. Close is idempotent and does not close the go-redis client.
func (c *Client) Close() error {
	c.closeOnce.Do(func() {
		c.rt.Close()
		c.rt.Hub.Close()
		c.rt.Wheel.Close()
	})
	return nil
}

// WithOwner returns a context with a new owner: every lock taken with it (or
// a context derived from it) belongs to that owner, like a Java thread.
// Lock calls add an owner by themselves when the context has none.
func WithOwner(ctx context.Context) context.Context { return core.WithNewOwner(ctx) }

// WithOwnerID returns a context whose owner is id, for callers that keep
// their own owner identities (the hash field is "<client id>:<id>").
func WithOwnerID(ctx context.Context, id int64) context.Context { return core.WithOwnerID(ctx, id) }

// OwnerFromContext returns the owner id carried by ctx.
func OwnerFromContext(ctx context.Context) (int64, bool) { return core.OwnerFrom(ctx) }
