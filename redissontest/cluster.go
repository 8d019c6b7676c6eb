package redissontest

import (
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/redistest"
)

// clusterMasters is the number of masters of a Cluster: the fewest that
// spread keys over several nodes with a majority left when one fails.
const clusterMasters = 3

// Cluster is a private Redis cluster of three masters without replicas,
// started by NewCluster. Each master serves a third of the hash slots.
type Cluster struct {
	c *redistest.Cluster
}

// NewCluster starts three cluster-enabled redis-servers, shares the hash
// slots among them and waits until every node reports a healthy cluster. It
// is stopped at cleanup. It fails the test, saying how to install
// redis-server, when redis-server is missing.
func NewCluster(t testing.TB) *Cluster {
	t.Helper()
	return &Cluster{c: redistest.StartCluster(t, clusterMasters)}
}

// Addrs returns the addresses of the masters.
func (c *Cluster) Addrs() []string { return c.c.Addrs() }

// Masters returns the masters, in slot order: the first serves the first
// third of the hash slots. Killing one shows what the code under test does
// while part of the cluster is down.
func (c *Cluster) Masters() []*Server {
	out := make([]*Server, len(c.c.Masters))
	for i, s := range c.c.Masters {
		out[i] = &Server{s: s}
	}
	return out
}

// Redis returns a go-redis cluster client seeded with every master, with
// opts applied to its options, closed at cleanup.
func (c *Cluster) Redis(t testing.TB, opts ...func(*redis.ClusterOptions)) *redis.ClusterClient {
	t.Helper()
	return c.c.Client(t, opts...)
}

// Client returns a *redisson.Client with opts over a go-redis cluster client
// of its own; both are closed at cleanup.
func (c *Cluster) Client(t testing.TB, opts ...redisson.Option) *redisson.Client {
	t.Helper()
	return NewClient(t, c.c.Client(t), opts...)
}
