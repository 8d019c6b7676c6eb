package semaphore_test

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/faultproxy"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/keys"
)

// proxied returns a Client whose Redis traffic goes through a fault proxy
// to srv, with the acquire script loaded and a connection open.
func proxied(t *testing.T, srv *redistest.Server, name string) (*redisson.Client, *faultproxy.Proxy) {
	t.Helper()
	p, err := faultproxy.New(srv.Addr())
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close() })
	rdb := redis.NewClient(&redis.Options{Addr: p.Addr(), ReadTimeout: 10 * time.Second, MaxRetries: -1, MaintNotificationsConfig: redistest.MaintOff()})
	t.Cleanup(func() { _ = rdb.Close() })
	c, err := redisson.New(rdb)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	ctx := context.Background()
	s := c.Semaphore(name)
	ok, err := s.TrySetPermits(ctx, 1)
	require.NoError(t, err)
	require.True(t, ok)
	require.NoError(t, s.Acquire(ctx, 1))
	require.NoError(t, s.Release(ctx, 1))
	return c, p
}

// TestCancelledInFlightAcquireGivesBack: an acquire whose caller leaves
// while its script is on the way still runs in Redis; its reply is awaited
// in the background and the permit it took is released, so the caller's
// leaving costs no permit.
func TestCancelledInFlightAcquireGivesBack(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	pub := redistest.Capture(t, raw)
	c, p := proxied(t, srv, "inflight")
	s := c.Semaphore("inflight")
	pub.Drain(t)

	p.Stall()
	sent := p.Stats().FromClient
	ctx, cancel := context.WithCancel(context.Background())
	got := make(chan error, 1)
	go func() { got <- s.Acquire(ctx, 1) }()
	redistest.Eventually(t, 5*time.Second, "the acquire left the client", func() bool { return p.Stats().FromClient > sent })
	cancel()
	select {
	case err := <-got:
		require.ErrorIs(t, err, context.Canceled)
	case <-time.After(5 * time.Second):
		t.Fatal("the cancelled acquire did not return")
	}
	require.Equal(t, "1", rawValue(t, raw, "inflight"), "held by the proxy, not run yet")

	p.Resume()
	// The script takes the permit; the give-back publishes the new total.
	channel, payload := pub.Next(t)
	require.Equal(t, keys.SemaphoreChannel("inflight"), channel)
	require.Equal(t, "1", payload)
	require.Equal(t, "1", rawValue(t, raw, "inflight"))
}

// TestLostAcquireReplyIsReported: when the connection breaks with the
// acquire on the way, the outcome is unknown; Acquire says so rather than
// guess that it took the permit (a give-back could then create one).
func TestLostAcquireReplyIsReported(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	c, p := proxied(t, srv, "lost")
	s := c.Semaphore("lost")

	p.Stall()
	sent := p.Stats().FromClient
	got := make(chan error, 1)
	go func() {
		_, err := s.TryAcquire(context.Background(), 1)
		got <- err
	}()
	redistest.Eventually(t, 5*time.Second, "the acquire left the client", func() bool { return p.Stats().FromClient > sent })
	p.Cut()
	select {
	case err := <-got:
		require.Error(t, err)
		require.ErrorContains(t, err, "no reply to the acquire of 1 permits")
		require.NotErrorIs(t, err, redisson.ErrWrongType)
	case <-time.After(15 * time.Second):
		t.Fatal("the acquire did not return")
	}
	// The proxy dropped the request: nothing was taken, nothing created.
	require.Equal(t, "1", rawValue(t, raw, "lost"))
}
