package pubsub_test

import (
	"context"
	"errors"
	"strconv"
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

// nextReliable returns the next message of s, failing the test when none
// comes or it is an error.
func nextReliable[T any](t testing.TB, s *pubsub.ReliableSubscription[T]) pubsub.Message[T] {
	t.Helper()
	select {
	case m, ok := <-s.Messages():
		require.True(t, ok, "subscription ended: %v", s.Err())
		require.NoError(t, m.Err)
		return m
	case <-time.After(receiveWithin):
		t.Fatalf("no message within %v", receiveWithin)
	}
	return pubsub.Message[T]{}
}

// score returns the member's score in {name}:timeout, or false.
func score(t testing.TB, raw *redis.Client, key, member string) (float64, bool) {
	t.Helper()
	s, err := raw.ZScore(context.Background(), key, member).Result()
	if errors.Is(err, redis.Nil) {
		return 0, false
	}
	require.NoError(t, err)
	return s, true
}

func groupNames(t testing.TB, raw *redis.Client, stream string) []string {
	t.Helper()
	gs, err := raw.XInfoGroups(context.Background(), stream).Result()
	require.NoError(t, err)
	var out []string
	for _, g := range gs {
		out = append(out, g.Name)
	}
	return out
}

// TestReliableRawState checks the stream, the subscriber's group and its
// registration in Redis through one subscriber's life.
func TestReliableRawState(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	ctx := t.Context()
	c := redissontest.ClientAt(t, srv.Addr())
	topic := redisson.NewReliableTopic[string](c, "rt:raw", codec.String())

	n, err := topic.Publish(ctx, "m0")
	require.NoError(t, err)
	require.Equal(t, int64(0), n, "no subscriber yet: Java returns 0 too")
	require.Equal(t, int64(1), raw.XLen(ctx, "rt:raw").Val(), "the message stays for later subscribers")
	entries := raw.XRange(ctx, "rt:raw", "-", "+").Val()
	require.Equal(t, map[string]any{"m": "m0"}, entries[0].Values)

	before := time.Now().UnixMilli()
	sub, err := topic.Subscribe(ctx, pubsub.WithWatchdogTimeout(time.Minute))
	require.NoError(t, err)
	after := time.Now().UnixMilli()
	require.Regexp(t, `^[0-9a-f]{32}$`, sub.ID())
	require.Equal(t, []string{sub.ID()}, groupNames(t, raw, "rt:raw"))
	sc, ok := score(t, raw, "{rt:raw}:timeout", sub.ID())
	require.True(t, ok)
	require.GreaterOrEqual(t, int64(sc), before+60000)
	require.LessOrEqual(t, int64(sc), after+60000)
	require.Equal(t, time.Duration(-1), raw.PTTL(ctx, "{rt:raw}:timeout").Val(), "no TTL")

	m := nextReliable(t, sub)
	require.Equal(t, "m0", m.Value, "a new subscriber starts at the beginning of the stream")
	require.Equal(t, "rt:raw", m.Channel)
	require.Equal(t, entries[0].ID, m.ID)
	n, err = topic.Publish(ctx, "m1")
	require.NoError(t, err)
	require.Equal(t, int64(1), n)
	require.Equal(t, "m1", nextReliable(t, sub).Value)
	// Acknowledged, then trimmed by the subscriber's update script.
	redistest.Eventually(t, receiveWithin, "the stream trimmed", func() bool {
		return raw.XLen(ctx, "rt:raw").Val() == 0
	})
	g := raw.XInfoGroups(ctx, "rt:raw").Val()[0]
	require.Equal(t, int64(0), g.Pending)
	count, err := topic.CountSubscribers(ctx)
	require.NoError(t, err)
	require.Equal(t, int64(1), count)
	require.Equal(t, 1, topic.CountListeners())
	size, err := topic.Size(ctx)
	require.NoError(t, err)
	require.Equal(t, int64(0), size)

	require.NoError(t, sub.Close())
	require.NoError(t, sub.Err())
	_, open := <-sub.Messages()
	require.False(t, open)
	require.Empty(t, groupNames(t, raw, "rt:raw"), "Close destroys the group")
	require.Equal(t, int64(0), raw.Exists(ctx, "{rt:raw}:timeout").Val(), "and removes the registration")
	require.Equal(t, 0, topic.CountListeners())
	require.NoError(t, sub.Close(), "idempotent")
}

// TestReliableDeadSubscriber: a subscriber whose client dies without
// unsubscribing keeps its group, and so the messages it had not
// acknowledged, until its registration expires; a new subscriber gets
// everything still in the stream; the next poll after the expiry removes
// the dead subscriber.
func TestReliableDeadSubscriber(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	ctx := t.Context()
	const name = "rt:dead"
	c1 := redissontest.ClientAt(t, srv.Addr())
	dead, err := redisson.NewReliableTopic[string](c1, name, codec.String()).
		Subscribe(ctx, pubsub.WithWatchdogTimeout(600*time.Millisecond))
	require.NoError(t, err)

	c2 := redissontest.ClientAt(t, srv.Addr())
	topic := redisson.NewReliableTopic[string](c2, name, codec.String())
	for i := 1; i <= 3; i++ {
		_, err := topic.Publish(ctx, "m"+strconv.Itoa(i))
		require.NoError(t, err)
	}
	require.Equal(t, "m1", nextReliable(t, dead).Value)
	// The dead subscriber's reader now waits to hand over m2: kill its
	// client without unsubscribing.
	require.NoError(t, c1.Close())
	for range dead.Messages() {
	}
	require.ErrorIs(t, dead.Err(), redisson.ErrClosed)
	require.NoError(t, dead.Close(), "after the client's Close: nothing to do")
	_, ok := score(t, raw, "{rt:dead}:timeout", dead.ID())
	require.True(t, ok, "the registration outlives the client, as in Java")
	require.Equal(t, []string{dead.ID()}, groupNames(t, raw, name))

	fresh, err := topic.Subscribe(ctx)
	require.NoError(t, err)
	defer fresh.Close()
	for i := 1; i <= 3; i++ {
		require.Equal(t, "m"+strconv.Itoa(i), nextReliable(t, fresh).Value, "a new group starts at 0")
	}

	// Once the dead registration expired, the next poll of a live
	// subscriber destroys its group.
	expiry, _ := score(t, raw, "{rt:dead}:timeout", dead.ID())
	redistest.Eventually(t, receiveWithin, "the dead registration expired", func() bool {
		return time.Now().UnixMilli() > int64(expiry)
	})
	n, err := topic.Publish(ctx, "m4")
	require.NoError(t, err)
	require.Equal(t, int64(2), n, "the dead group still counts until a poll removes it")
	require.Equal(t, "m4", nextReliable(t, fresh).Value)
	redistest.Eventually(t, receiveWithin, "the dead subscriber removed", func() bool {
		_, ok := score(t, raw, "{rt:dead}:timeout", dead.ID())
		gs := groupNames(t, raw, name)
		return !ok && len(gs) == 1 && gs[0] == fresh.ID()
	})
	redistest.Eventually(t, receiveWithin, "the stream trimmed", func() bool {
		return raw.XLen(ctx, name).Val() == 0
	})
}

// TestReliableRenewal: a live subscriber renews its registration every
// third of the watchdog timeout; one whose registration vanished ends with
// ErrSubscriberGone.
func TestReliableRenewal(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	ctx := t.Context()
	c := redissontest.ClientAt(t, srv.Addr())
	sub, err := redisson.NewReliableTopic[string](c, "rt:renew", codec.String()).
		Subscribe(ctx, pubsub.WithWatchdogTimeout(900*time.Millisecond))
	require.NoError(t, err)
	first, ok := score(t, raw, "{rt:renew}:timeout", sub.ID())
	require.True(t, ok)
	redistest.Eventually(t, receiveWithin, "the registration renewed", func() bool {
		s, ok := score(t, raw, "{rt:renew}:timeout", sub.ID())
		return ok && s > first
	})
	// Someone removes the registration (as an expiry would): the next
	// renewal notices and the subscription ends.
	require.NoError(t, raw.ZRem(ctx, "{rt:renew}:timeout", sub.ID()).Err())
	select {
	case _, open := <-sub.Messages():
		require.False(t, open)
	case <-time.After(receiveWithin):
		t.Fatal("the subscription did not end")
	}
	require.ErrorIs(t, sub.Err(), pubsub.ErrSubscriberGone)
	require.EqualError(t, sub.Err(), `reliable topic "rt:renew": receive: subscriber registration expired or removed`)
	require.NoError(t, sub.Close())
}

// TestReliableJavaJson: an entry Java's JsonJacksonCodec wrote decodes into
// the Go struct, and the struct is published as the same bytes.
func TestReliableJavaJson(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	ctx := t.Context()
	c := redissontest.ClientAt(t, srv.Addr())
	cd := codec.JsonJackson(codec.NewTypes().MustRegister("org.goredisson.interop.Person", person{}))
	topic := redisson.NewReliableTopic[person](c, "rt:json", cd)
	// What Java's RReliableTopic.publish(person) writes.
	require.NoError(t, raw.XAdd(ctx, &redis.XAddArgs{Stream: "rt:json", Values: []any{"m", javaPerson}}).Err())
	sub, err := topic.Subscribe(ctx)
	require.NoError(t, err)
	defer sub.Close()
	id := int64(7)
	want := person{Name: "Ann", Age: 42, ID: &id, Count: 9, Score: 1.5, Active: true, Tags: []string{"a", "b"}}
	require.Equal(t, want, nextReliable(t, sub).Value)

	_, err = topic.Publish(ctx, want)
	require.NoError(t, err)
	require.Equal(t, want, nextReliable(t, sub).Value)
	// Before the trim (the stream may already be empty), or from the
	// command itself: compare what XADD stored via a second stream.
	other := redisson.NewReliableTopic[person](c, "rt:json2", cd)
	_, err = other.Publish(ctx, want)
	require.NoError(t, err)
	require.Equal(t, map[string]any{"m": javaPerson}, raw.XRange(ctx, "rt:json2", "-", "+").Val()[0].Values)

	// Bytes the codec cannot read arrive as an error, and the subscriber
	// moves on (Java would retry them forever).
	require.NoError(t, raw.XAdd(ctx, &redis.XAddArgs{Stream: "rt:json", Values: []any{"m", `{"a":`}}).Err())
	select {
	case m := <-sub.Messages():
		require.ErrorIs(t, m.Err, codec.ErrDecode)
	case <-time.After(receiveWithin):
		t.Fatal("no message")
	}
	_, err = topic.Publish(ctx, want)
	require.NoError(t, err)
	require.Equal(t, want, nextReliable(t, sub).Value)
}

// TestReliableSlowConsumerBlocksOnlyItself: the reader waits for its
// consumer (nothing is dropped) while another subscription of the same
// client goes on.
func TestReliableSlowConsumerBlocksOnlyItself(t *testing.T) {
	srv := redistest.StartServer(t)
	ctx := t.Context()
	c := redissontest.ClientAt(t, srv.Addr())
	topic := redisson.NewReliableTopic[int64](c, "rt:slow", codec.Long())
	slow, err := topic.Subscribe(ctx)
	require.NoError(t, err)
	defer slow.Close()
	fast, err := topic.Subscribe(ctx)
	require.NoError(t, err)
	defer fast.Close()
	const total = 200
	for i := range int64(total) {
		_, err := topic.Publish(ctx, i)
		require.NoError(t, err)
		require.Equal(t, i, nextReliable(t, fast).Value)
	}
	for i := range int64(total) {
		require.Equal(t, i, nextReliable(t, slow).Value, "nothing dropped, in order")
	}
}

// TestReliableCloseAndCancel: Close and a cancelled Subscribe leave nothing
// in Redis; invalid handles and a closed client fail as documented.
func TestReliableCloseAndCancel(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	ctx := t.Context()
	c := redissontest.ClientAt(t, srv.Addr())
	topic := redisson.NewReliableTopic[string](c, "rt:cancel", codec.String())

	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	_, err := topic.Subscribe(cancelled)
	require.ErrorIs(t, err, context.Canceled)
	// The topic's keys only: the client keeps keys of its own (its
	// registration, issue #19).
	require.Zero(t, raw.Exists(ctx, "rt:cancel", "{rt:cancel}:timeout").Val(), "a cancelled Subscribe leaves no registration")

	// A deadline that ends while the registration is under way: whatever
	// happened in Redis is undone.
	for _, d := range []time.Duration{0, time.Microsecond, 50 * time.Microsecond, time.Millisecond} {
		short, cancel := context.WithTimeout(ctx, d)
		s, err := topic.Subscribe(short)
		cancel()
		if err == nil {
			require.NoError(t, s.Close())
		}
		require.Empty(t, raw.ZRange(ctx, "{rt:cancel}:timeout", 0, -1).Val())
		if raw.Exists(ctx, "rt:cancel").Val() == 1 {
			require.Empty(t, groupNames(t, raw, "rt:cancel"))
		}
	}
	require.Equal(t, 0, topic.CountListeners())

	tests := []struct {
		name  string
		topic *pubsub.ReliableTopic[string]
		want  error
		text  string
	}{
		{"empty name", redisson.NewReliableTopic[string](c, "", codec.String()), redisson.ErrInvalidName,
			`reliable topic "": subscribe: invalid name: the name must not be empty`},
		{"nil codec", redisson.NewReliableTopic[string](c, "x", nil), redisson.ErrInvalidArgument,
			`reliable topic "x": subscribe: invalid argument: nil codec`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.topic.Subscribe(ctx)
			require.ErrorIs(t, err, tc.want)
			require.EqualError(t, err, tc.text)
			_, err = tc.topic.Publish(ctx, "m")
			require.ErrorIs(t, err, tc.want)
			_, err = tc.topic.CountSubscribers(ctx)
			require.ErrorIs(t, err, tc.want)
			_, err = tc.topic.Size(ctx)
			require.ErrorIs(t, err, tc.want)
		})
	}
	_, err = topic.Subscribe(ctx, pubsub.WithWatchdogTimeout(time.Millisecond))
	require.ErrorIs(t, err, redisson.ErrInvalidArgument)

	sub, err := topic.Subscribe(ctx)
	require.NoError(t, err)
	require.NoError(t, c.Close())
	for range sub.Messages() {
	}
	require.ErrorIs(t, sub.Err(), redisson.ErrClosed)
	_, err = topic.Publish(ctx, "m")
	require.ErrorIs(t, err, redisson.ErrClosed)
	require.EqualError(t, err, `reliable topic "rt:cancel": publish: client is closed`)
	_, err = topic.Subscribe(ctx)
	require.ErrorIs(t, err, redisson.ErrClosed)
}

// TestReliableReadCount: without a cap a read takes the whole backlog
// (Redisson sends no COUNT), so everything the reader holds is pending in
// the group at once; WithReadCount(2) takes two at a time, and every
// message still arrives once, in order. A negative count is refused.
func TestReliableReadCount(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	ctx := t.Context()
	c := redissontest.ClientAt(t, srv.Addr())
	for _, tc := range []struct {
		name        string
		opts        []pubsub.ReliableOption
		wantPending int64 // after m1 is received and acknowledged
	}{
		{"no COUNT, as Redisson", nil, 4},
		{"COUNT 2", []pubsub.ReliableOption{pubsub.WithReadCount(2)}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			name := "rt:count:" + tc.name
			topic := redisson.NewReliableTopic[string](c, name, codec.String())
			for i := 1; i <= 5; i++ {
				_, err := topic.Publish(ctx, "m"+strconv.Itoa(i))
				require.NoError(t, err)
			}
			sub, err := topic.Subscribe(ctx, tc.opts...)
			require.NoError(t, err)
			defer sub.Close()
			require.Equal(t, "m1", nextReliable(t, sub).Value)
			redistest.Eventually(t, receiveWithin, "m1 acknowledged", func() bool {
				p, err := raw.XPending(ctx, name, sub.ID()).Result()
				return err == nil && p.Count == tc.wantPending
			})
			for i := 2; i <= 5; i++ {
				require.Equal(t, "m"+strconv.Itoa(i), nextReliable(t, sub).Value)
			}
		})
	}
	_, err := redisson.NewReliableTopic[string](c, "rt:count", codec.String()).Subscribe(ctx, pubsub.WithReadCount(-1))
	require.ErrorIs(t, err, redisson.ErrInvalidArgument)
	require.EqualError(t, err, `reliable topic "rt:count": subscribe: invalid argument: the read count must not be negative, got -1`)
}
