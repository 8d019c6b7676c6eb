// Package redissontest starts private redis-server processes for the tests of
// code that uses redisson-go: a single server (NewServer), a cluster of three
// masters (NewCluster) and a primary with replicas (NewReplicated). Each is
// bound to a free loopback port, keeps no data on disk, and is stopped and
// its directory removed by t.Cleanup; each hands out ready clients, a
// *redisson.Client (Client) and a go-redis client (Redis), closed at cleanup
// too.
//
// The servers are real redis-server processes, so the Lua scripts, pub/sub
// and blocking commands the objects rely on behave as in production (see
// docs/testing.md for what an in-process fake such as miniredis lacks). When
// redis-server is missing the test fails, saying how to install it, rather
// than being skipped: a suite that skips its Redis tests passes without
// testing anything. Set REDIS_SERVER to use a redis-server that is not on
// PATH.
//
// A typical test:
//
//	func TestTransfer(t *testing.T) {
//		srv := redissontest.NewServer(t)
//		c := srv.Client(t)
//		// ... run the code under test with c; read what it stored with srv.Redis(t).
//	}
package redissontest

import (
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/redistest"
)

// Option configures a server started by NewServer.
type Option func(*config)

// config is what the Options set.
type config struct {
	args []string
}

// WithArgs passes extra redis-server command-line arguments, after the
// defaults so that they override them, e.g.
// WithArgs("--maxmemory", "10mb", "--maxmemory-policy", "noeviction").
func WithArgs(args ...string) Option {
	return func(c *config) { c.args = append(c.args, args...) }
}

// Server is a private redis-server started by NewServer (or a node of a
// Cluster or Replicated). Its methods are safe for concurrent use.
type Server struct {
	s *redistest.Server
}

// NewServer starts a redis-server for the test on a free loopback port and
// waits until it answers. It is stopped at cleanup. It fails the test, saying
// how to install redis-server, when redis-server is missing.
func NewServer(t testing.TB, opts ...Option) *Server {
	t.Helper()
	var cfg config
	for _, o := range opts {
		o(&cfg)
	}
	return &Server{s: redistest.StartServer(t, redistest.Options{Args: cfg.args})}
}

// Addr returns the server's address, "127.0.0.1:PORT".
func (s *Server) Addr() string { return s.s.Addr() }

// String returns the server's address.
func (s *Server) String() string { return s.s.Addr() }

// Redis returns a go-redis client of the server with opts applied to its
// options, closed at cleanup: to prepare or read the data the code under
// test sees.
func (s *Server) Redis(t testing.TB, opts ...func(*redis.Options)) *redis.Client {
	t.Helper()
	return redistest.Client(t, s.s, opts...)
}

// Client returns a *redisson.Client with opts over a go-redis client of its
// own to the server; both are closed at cleanup.
func (s *Server) Client(t testing.TB, opts ...redisson.Option) *redisson.Client {
	t.Helper()
	return NewClient(t, redistest.Client(t, s.s), opts...)
}

// Kill ends the server at once with SIGKILL, as a crash would, so that a
// test can see what its code does while Redis is down. Restart brings it
// back.
func (s *Server) Kill(t testing.TB) {
	t.Helper()
	if err := s.s.Kill(); err != nil {
		t.Fatalf("redissontest: %v", err)
	}
}

// Restart starts a killed server again on the same address and waits until
// it answers; a running server is killed first. The data set starts empty:
// nothing is persisted.
func (s *Server) Restart(t testing.TB) {
	t.Helper()
	if err := s.s.Restart(t.Context()); err != nil {
		t.Fatalf("redissontest: %v", err)
	}
}

// NewClient returns a *redisson.Client with opts over rdb (a *redis.Client,
// a *redis.ClusterClient or a failover client), closed at cleanup before
// rdb, which the caller owns, is closed: for a Redis the test did not start
// here, such as a shared one in CI. Create it before rdb's first commands
// (see redisson.New).
func NewClient(t testing.TB, rdb redis.UniversalClient, opts ...redisson.Option) *redisson.Client {
	t.Helper()
	c, err := redisson.New(rdb, opts...)
	if err != nil {
		t.Fatalf("redissontest: redisson.New: %v", err)
	}
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Errorf("redissontest: close client: %v", err)
		}
	})
	return c
}

// ClientAt returns a *redisson.Client with opts over a go-redis client of its
// own to the Redis at addr ("host:port"); both are closed at cleanup. It is
// for a Redis this package did not start, such as one a CI job provides, or
// a server a test drives itself.
//
// The go-redis client has maintenance notifications off: go-redis v9.23
// writes its shared notifications config without a lock when the first
// handshakes of two connections fail together on a redis-server without
// CLIENT MAINT_NOTIFICATIONS, a data race the race detector reports.
func ClientAt(t testing.TB, addr string, opts ...redisson.Option) *redisson.Client {
	t.Helper()
	rdb := redis.NewClient(&redis.Options{Addr: addr, MaintNotificationsConfig: redistest.MaintOff()})
	t.Cleanup(func() { _ = rdb.Close() })
	return NewClient(t, rdb, opts...)
}
