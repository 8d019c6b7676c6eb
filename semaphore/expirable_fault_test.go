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

// TestExpirableLostReplyUnknown: when neither the acquire nor the question
// whether it ran gets through, the error says the outcome is unknown.
func TestExpirableLostReplyUnknown(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	c, p := proxied(t, srv, "cut")
	s := c.PermitExpirableSemaphore("cut")

	p.Stall()
	sent := p.Stats().FromClient
	got := make(chan error, 1)
	go func() {
		_, _, err := s.TryAcquire(context.Background())
		got <- err
	}()
	redistest.Eventually(t, 5*time.Second, "the acquire left the client", func() bool { return p.Stats().FromClient > sent })
	p.Cut()
	select {
	case err := <-got:
		require.ErrorContains(t, err, "no reply to the acquire of 1 permits")
	case <-time.After(15 * time.Second):
		t.Fatal("the acquire did not return")
	}
	require.Equal(t, "1", rawValue(t, raw, "cut"), "the proxy dropped it: nothing was taken")
}

// TestExpirableUnknownAcquireRunsLate: an acquire whose reply and whose
// check are both lost in a stall runs in Redis once the network is back,
// for nobody (the caller was told it failed). Its permit has no lease, so
// nothing would ever return it: the client keeps asking until Redis
// answers and gives the permit back.
func TestExpirableUnknownAcquireRunsLate(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	p, err := faultproxy.New(srv.Addr())
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close() })
	rdb := redis.NewClient(&redis.Options{Addr: p.Addr(), ReadTimeout: 300 * time.Millisecond, MaxRetries: -1,
		MaintNotificationsConfig: redistest.MaintOff()})
	t.Cleanup(func() { _ = rdb.Close() })
	c, err := redisson.New(rdb, redisson.WithTimeout(500*time.Millisecond))
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	ctx := context.Background()
	s := c.PermitExpirableSemaphore("late")
	pub := redistest.Capture(t, raw)
	ok, err := s.TrySetPermits(ctx, 1)
	require.NoError(t, err)
	require.True(t, ok)
	// Load the acquire script: answered NOSCRIPT, the late acquire would
	// take nothing.
	id, ok, err := s.TryAcquire(ctx)
	require.NoError(t, err)
	require.True(t, ok)
	require.NoError(t, s.Release(ctx, id))
	pub.Drain(t)

	p.Stall()
	sent := p.Stats().FromClient
	got := make(chan error, 1)
	go func() {
		_, _, err := s.TryAcquire(ctx)
		got <- err
	}()
	redistest.Eventually(t, 5*time.Second, "the acquire left the client", func() bool { return p.Stats().FromClient > sent })
	select {
	case err := <-got:
		require.ErrorContains(t, err, "whether it ran is not known yet")
	case <-time.After(15 * time.Second):
		t.Fatal("the acquire did not return")
	}
	require.Equal(t, "1", rawValue(t, raw, "late"), "held by the proxy, not run yet")

	p.Resume()
	// The acquire runs and takes the permit (it publishes nothing); the
	// give-back publishes the new count.
	channel, payload := pub.Next(t)
	require.Equal(t, keys.SemaphoreChannel("late"), channel)
	require.Equal(t, "1", payload)
	redistest.Eventually(t, 10*time.Second, "the late acquire's permit is given back", func() bool {
		n, err := raw.ZCard(ctx, "{late}:timeout").Result()
		require.NoError(t, err)
		return n == 0 && rawValue(t, raw, "late") == "1"
	})
	id, ok, err = s.TryAcquire(ctx)
	require.NoError(t, err)
	require.True(t, ok)
	require.NoError(t, s.Release(ctx, id))
}
