package redissontest

import (
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/redistest"
)

// Replicated is a private primary redis-server with replicas, started by
// NewReplicated. A Client of it writes to the primary and, as Redisson's
// does, sends WAIT after lock writes so that a replica has them before the
// call returns (redisson.Options.ReplicaSync).
type Replicated struct {
	primary  *Server
	replicas []*Server
}

// NewReplicated starts a primary and replicas replicas of it (at least one)
// and waits until every replica is in sync. All are stopped at cleanup. It
// fails the test, saying how to install redis-server, when redis-server is
// missing.
func NewReplicated(t testing.TB, replicas int) *Replicated {
	t.Helper()
	if replicas < 1 {
		t.Fatalf("redissontest.NewReplicated: at least one replica, not %d", replicas)
	}
	p := redistest.StartServer(t)
	r := &Replicated{primary: &Server{s: p}, replicas: make([]*Server, replicas)}
	for i := range r.replicas {
		r.replicas[i] = &Server{s: redistest.StartReplica(t, p)}
	}
	return r
}

// Primary returns the primary.
func (r *Replicated) Primary() *Server { return r.primary }

// Replicas returns the replicas.
func (r *Replicated) Replicas() []*Server { return append([]*Server(nil), r.replicas...) }

// Addr returns the primary's address.
func (r *Replicated) Addr() string { return r.primary.Addr() }

// Redis returns a go-redis client of the primary with opts applied to its
// options, closed at cleanup.
func (r *Replicated) Redis(t testing.TB, opts ...func(*redis.Options)) *redis.Client {
	t.Helper()
	return r.primary.Redis(t, opts...)
}

// Client returns a *redisson.Client with opts over a go-redis client of its
// own to the primary; both are closed at cleanup.
func (r *Replicated) Client(t testing.TB, opts ...redisson.Option) *redisson.Client {
	t.Helper()
	return r.primary.Client(t, opts...)
}
