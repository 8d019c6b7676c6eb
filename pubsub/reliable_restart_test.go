package pubsub_test

import (
	"context"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/codec"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/pubsub"
	"github.com/goredisson/redisson/redissontest"
)

// restartWithin bounds a subscription's recovery after Redis came back: it
// retries once a second. A hang guard, not a timing assertion.
const restartWithin = 30 * time.Second

// nextReliableWithin is nextReliable with a bound of its own.
func nextReliableWithin[T any](t testing.TB, s *pubsub.ReliableSubscription[T], d time.Duration) pubsub.Message[T] {
	t.Helper()
	select {
	case m, ok := <-s.Messages():
		require.True(t, ok, "subscription ended: %v", s.Err())
		require.NoError(t, m.Err)
		return m
	case <-time.After(d):
		t.Fatalf("no message within %v", d)
	}
	return pubsub.Message[T]{}
}

// TestReliableSurvivesRestart: Redis with an append-only file fsynced on
// every write is killed (SIGKILL) and restarted under a subscriber. Its
// first read took m1..m3 at once (XREADGROUP has no COUNT), so its group
// holds m2 and m3 as pending; m1 was received and acknowledged, m2 is
// received while Redis is down (its XACK fails and is retried). The
// publisher's calls fail while Redis is down and work again after; the
// subscriber resumes where its group stood: m3, then what is published
// after the restart, each entry exactly once (without the XACK's retry, m2
// would come again from the pending list).
func TestReliableSurvivesRestart(t *testing.T) {
	srv := redistest.StartServer(t, redistest.Options{Args: []string{"--appendonly", "yes", "--appendfsync", "always"}})
	raw := redistest.Client(t, srv)
	ctx := t.Context()
	rdb := redistest.Client(t, srv)
	xacks := &xackHook{}
	rdb.AddHook(xacks)
	c, err := redisson.New(rdb)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	const name = "rt:restart"
	topic := redisson.NewReliableTopic[string](c, name, codec.String())
	for i := 1; i <= 3; i++ {
		n, err := topic.Publish(ctx, "m"+strconv.Itoa(i))
		require.NoError(t, err)
		require.Zero(t, n, "no subscriber yet: kept in the stream")
	}
	// A group that reads nothing (a lagging subscriber elsewhere) keeps
	// every entry in the stream: the trim after each poll goes by the
	// slowest group's last delivered id, so an entry our reader has
	// already taken but not acknowledged could otherwise be trimmed
	// before it is read again, which would hide a duplicate.
	require.NoError(t, raw.XGroupCreate(ctx, name, "lagging", "0").Err())
	sub, err := topic.Subscribe(ctx)
	require.NoError(t, err)
	defer sub.Close()
	ids := map[string]bool{}
	receive := func(want string) {
		t.Helper()
		m := nextReliableWithin(t, sub, restartWithin)
		require.False(t, ids[m.ID], "entry %s (%q) delivered twice", m.ID, m.Value)
		ids[m.ID] = true
		require.Equal(t, want, m.Value)
	}
	receive("m1")
	// The reader has its XACK's reply (it is handing over m2 now), and
	// Redis has m2 and m3 pending.
	redistest.Eventually(t, receiveWithin, "m1 acknowledged, m2 and m3 pending", func() bool {
		p, err := raw.XPending(ctx, name, sub.ID()).Result()
		return xacks.ok.Load() == 1 && err == nil && p.Count == 2
	})

	require.NoError(t, srv.Kill())
	receive("m2") // its XACK cannot reach Redis now
	_, err = topic.Publish(ctx, "lost")
	require.Error(t, err, "a publish while Redis is down fails, so the publisher knows")
	redistest.Eventually(t, restartWithin, "m2's XACK failed (go-redis' own retries spent)", func() bool {
		return xacks.failed.Load() > 0
	})
	require.NoError(t, srv.Restart(ctx))

	// The publisher works again on its own (go-redis drops the dead
	// connections).
	redistest.Eventually(t, restartWithin, "the publisher works after the restart", func() bool {
		_, err := topic.Size(ctx)
		return err == nil
	})
	receive("m3")
	n, err := topic.Publish(ctx, "m4")
	require.NoError(t, err)
	require.EqualValues(t, 2, n, "the subscriber's group (and the lagging one) survived the restart")
	receive("m4")
	// Nothing else is pending: the next message is the next one published.
	_, err = topic.Publish(ctx, "m5")
	require.NoError(t, err)
	receive("m5")
	require.NoError(t, sub.Err())

	// A subscription that ends and a new one: Close removes the
	// subscriber (its group); the new one is a new subscriber (a new id)
	// whose group starts at 0, as Redisson's RReliableTopic creates it, so
	// it receives every message still in the stream, here all of them
	// (the lagging group kept them), then what follows.
	require.NoError(t, sub.Close())
	n, err = topic.Publish(ctx, "m6")
	require.NoError(t, err)
	require.EqualValues(t, 1, n, "the closed subscriber is gone; the lagging group remains")
	again, err := topic.Subscribe(ctx)
	require.NoError(t, err)
	defer again.Close()
	require.NotEqual(t, sub.ID(), again.ID())
	for _, want := range []string{"m1", "m2", "m3", "m4", "m5", "m6"} {
		require.Equal(t, want, nextReliable(t, again).Value)
	}
}

// TestReliableRestartWithoutPersistence: Redis restarts empty (no
// persistence): the stream, the subscriber's group and its registration
// are gone, so the subscription ends with ErrSubscriberGone (messages may
// be missing; Java stops polling silently) and a new Subscribe starts
// over. The publisher works again and its messages reach the new
// subscriber.
func TestReliableRestartWithoutPersistence(t *testing.T) {
	srv := redistest.StartServer(t)
	ctx := t.Context()
	c := redissontest.ClientAt(t, srv.Addr())
	const name = "rt:volatile"
	topic := redisson.NewReliableTopic[string](c, name, codec.String())
	sub, err := topic.Subscribe(ctx, pubsub.WithWatchdogTimeout(900*time.Millisecond))
	require.NoError(t, err)
	defer sub.Close()
	_, err = topic.Publish(ctx, "m1")
	require.NoError(t, err)
	require.Equal(t, "m1", nextReliable(t, sub).Value)

	require.NoError(t, srv.Restart(ctx))
	select {
	case _, open := <-sub.Messages():
		require.False(t, open, "nothing to deliver: the stream is gone")
	case <-time.After(restartWithin):
		t.Fatal("the subscription did not end")
	}
	require.ErrorIs(t, sub.Err(), pubsub.ErrSubscriberGone)
	require.NoError(t, sub.Close())

	again, err := topic.Subscribe(ctx)
	require.NoError(t, err)
	defer again.Close()
	n, err := topic.Publish(ctx, "m2")
	require.NoError(t, err)
	require.EqualValues(t, 1, n)
	require.Equal(t, "m2", nextReliable(t, again).Value)
}

// xackHook counts XACK calls that succeeded and that failed (go-redis'
// retries included).
type xackHook struct{ ok, failed atomic.Int64 }

func (h *xackHook) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h *xackHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		err := next(ctx, cmd)
		if strings.EqualFold(cmd.Name(), "xack") {
			if err != nil {
				h.failed.Add(1)
			} else {
				h.ok.Add(1)
			}
		}
		return err
	}
}

func (h *xackHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}
