package conns

import (
	"context"
	"errors"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson/internal/replicas"
)

// Config is what a Pool is made of.
type Config struct {
	Redis   redis.UniversalClient
	Cluster bool
	// Timeout bounds the exchanges the pool makes on its own (a claim's
	// ECHO, a cluster's first slot map read, a retired connection's QUIT).
	Timeout time.Duration
	// Lifetime is done when the client closes.
	Lifetime context.Context
	// Epoch: soft bounds count from it on the monotonic clock.
	Epoch time.Time
	// Replicas, when set, is replica sync's cache: a call is bound on a
	// node only where no WAIT is due (see TakeBound).
	Replicas *replicas.Counts
}

// Pool is one client's dedicated connections and what bounds calls on them.
type Pool struct {
	redis    redis.UniversalClient
	cluster  bool
	timeout  time.Duration
	life     context.Context
	replicas *replicas.Counts
	// readTimeout is go-redis' own bound of a reply (ReadTimeout); 0 when
	// it waits forever.
	readTimeout time.Duration
	// ctxTimeouts: the go-redis client has ContextTimeoutEnabled, so it
	// ends a call at its context's deadline by itself.
	ctxTimeouts bool
	// binder lets dedicated connections be bound by a call's context (see
	// boundConn): the client's dial hook on a single node, every node
	// client's on a cluster (see cluster.go).
	binder *binder
	set    dedicated
}

// New returns a pool over cfg.Redis; it adds its dial hook to the client.
func New(cfg Config) *Pool {
	p := &Pool{redis: cfg.Redis, cluster: cfg.Cluster, timeout: cfg.Timeout, life: cfg.Lifetime, replicas: cfg.Replicas}
	p.readTimeout, p.ctxTimeouts = readTimeoutOf(cfg.Redis)
	switch c := cfg.Redis.(type) {
	case *redis.Client:
		if !cfg.Cluster {
			p.binder = &binder{}
			c.AddHook(p.binder)
		}
	case *redis.ClusterClient:
		if cfg.Cluster {
			p.bindCluster(c)
		}
	}
	if p.binder != nil {
		p.binder.soft.done = cfg.Lifetime.Done()
		p.binder.soft.epoch = cfg.Epoch
	}
	return p
}

// Close gives every idle dedicated connection back to its pool; busy ones
// follow when their command ends.
func (p *Pool) Close() { p.set.close() }

// ReadTimeout is go-redis' ReadTimeout, 0 when it waits for a reply forever.
func (p *Pool) ReadTimeout() time.Duration { return p.readTimeout }

// Get returns a dedicated connection to node, or nil when the caller should
// use node's pool.
func (p *Pool) Get(node *redis.Client) *Conn { return p.set.get(node) }

// Put gives c back after a command that ended with err; reply says err is
// an answer from Redis, not a failure to get one.
func (p *Pool) Put(c *Conn, err error, reply bool) { p.set.put(c, err, reply) }

// Redis returns the go-redis connection c stands for.
func (c *Conn) Redis() *redis.Conn { return c.conn }

// Node returns the node client c is a connection of.
func (c *Conn) Node() *redis.Client { return c.node }

// isReply reports whether err, from a command the pool sent itself, is an
// answer from Redis.
func isReply(err error) bool {
	var re redis.Error
	return !BadConn(err) && errors.As(err, &re)
}
