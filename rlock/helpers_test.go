package rlock_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/redistest"
)

// newClient returns a Client over its own go-redis client to srv; both are
// closed when the test ends.
func newClient(t testing.TB, srv *redistest.Server, opts ...redisson.Option) *redisson.Client {
	t.Helper()
	rdb := redistest.Client(t, srv)
	c, err := redisson.New(rdb, opts...)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// eventually waits for cond with a deadline, polling; it never sleeps a
// fixed time and hopes.
func eventually(t testing.TB, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for: %s", within, what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// numSub returns the number of subscribers of a channel.
func numSub(t testing.TB, raw *redis.Client, channel string) int64 {
	t.Helper()
	m, err := raw.PubSubNumSub(context.Background(), channel).Result()
	require.NoError(t, err)
	return m[channel]
}

// published captures messages on every channel from a raw PSUBSCRIBE *.
type published struct {
	ps *redis.PubSub
}

func capture(t testing.TB, raw *redis.Client) *published {
	t.Helper()
	ps := raw.PSubscribe(context.Background(), "*")
	_, err := ps.Receive(context.Background())
	require.NoError(t, err)
	t.Cleanup(func() { _ = ps.Close() })
	return &published{ps: ps}
}

// next returns the next message (channel, payload) within a deadline.
func (p *published) next(t testing.TB) (string, string) {
	t.Helper()
	msg, err := p.ps.ReceiveTimeout(context.Background(), 5*time.Second)
	require.NoError(t, err)
	m, ok := msg.(*redis.Message)
	require.True(t, ok, "unexpected %T", msg)
	return m.Channel, m.Payload
}

// none asserts that nothing was published before a marker.
func (p *published) none(t testing.TB, raw *redis.Client) {
	t.Helper()
	require.NoError(t, raw.Publish(context.Background(), "__marker__", "m").Err())
	ch, payload := p.next(t)
	require.Equal(t, "__marker__", ch, "unexpected message %q on %q", payload, ch)
}

func isCtxDone(ctx context.Context) bool {
	select {
	case <-ctx.Done():
		return true
	default:
		return false
	}
}

func causeIs(ctx context.Context, target error) bool {
	return errors.Is(context.Cause(ctx), target)
}
