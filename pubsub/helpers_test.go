package pubsub_test

import (
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/pubsub"
	"github.com/goredisson/redisson/redissontest"
)

// newClusterClient returns a Client over a cluster client of cl, both
// closed at cleanup.
func newClusterClient(t testing.TB, cl *redistest.Cluster, opts ...redisson.Option) *redisson.Client {
	t.Helper()
	return redissontest.NewClient(t, cl.Client(t), opts...)
}

// receiveWithin bounds every wait for a message: a hang guard, not a timing
// assertion.
const receiveWithin = 10 * time.Second

// next returns the next message of s, failing the test when none comes.
func next[T any](t testing.TB, s *pubsub.Subscription[T]) pubsub.Message[T] {
	t.Helper()
	select {
	case m, ok := <-s.Messages():
		require.True(t, ok, "subscription ended: %v", s.Err())
		return m
	case <-time.After(receiveWithin):
		t.Fatalf("no message within %v", receiveWithin)
	}
	return pubsub.Message[T]{}
}

// nextValue returns the next message's value, failing on a gap marker or a
// decode error.
func nextValue[T any](t testing.TB, s *pubsub.Subscription[T]) T {
	t.Helper()
	m := next(t, s)
	require.Nil(t, m.Gap, "gap marker")
	require.NoError(t, m.Err)
	return m.Value
}

// rawSubscribe returns a raw go-redis subscription, confirmed.
func rawSubscribe(t testing.TB, ps *redis.PubSub) *redis.PubSub {
	t.Helper()
	_, err := ps.Receive(t.Context())
	require.NoError(t, err)
	t.Cleanup(func() { _ = ps.Close() })
	return ps
}

// rawNext returns the next message of a raw subscription.
func rawNext(t testing.TB, ps *redis.PubSub) *redis.Message {
	t.Helper()
	for {
		msg, err := ps.ReceiveTimeout(t.Context(), receiveWithin)
		require.NoError(t, err)
		if m, ok := msg.(*redis.Message); ok {
			return m
		}
	}
}
