package pubsub_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/codec"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/internal/slot"
	"github.com/goredisson/redisson/pubsub"
	"github.com/goredisson/redisson/redissontest"
)

// Each kind delivers what its publisher sends, to every local subscription,
// and leaves nothing subscribed after Close.
func TestKinds(t *testing.T) {
	srv := redistest.StartServer(t)
	c := redissontest.ClientAt(t, srv.Addr())
	raw := redistest.Client(t, srv)
	ctx := t.Context()
	cases := []struct {
		name      string
		subscribe func() (*pubsub.Subscription[string], error)
		publish   func() (int64, error)
		channel   string
		pattern   string
		count     func() (int64, error)
		listeners func() int
		numsub    func() int64
	}{
		{
			name: "topic",
			subscribe: func() (*pubsub.Subscription[string], error) {
				return redisson.NewTopic[string](c, "news", codec.String()).Subscribe(ctx)
			},
			publish: func() (int64, error) {
				return redisson.NewTopic[string](c, "news", codec.String()).Publish(ctx, "hello")
			},
			channel: "news",
			count: func() (int64, error) {
				return redisson.NewTopic[string](c, "news", codec.String()).CountSubscribers(ctx)
			},
			listeners: func() int { return redisson.NewTopic[string](c, "news", codec.String()).CountListeners() },
			numsub:    func() int64 { return redistest.NumSub(t, raw, "news") },
		},
		{
			name: "pattern topic",
			subscribe: func() (*pubsub.Subscription[string], error) {
				return redisson.NewPatternTopic[string](c, "news.*", codec.String()).Subscribe(ctx)
			},
			publish: func() (int64, error) {
				return redisson.NewTopic[string](c, "news.sport", codec.String()).Publish(ctx, "hello")
			},
			channel:   "news.sport",
			pattern:   "news.*",
			listeners: func() int { return redisson.NewPatternTopic[string](c, "news.*", codec.String()).CountListeners() },
			numsub:    func() int64 { return raw.PubSubNumPat(ctx).Val() },
		},
		{
			name: "sharded topic",
			subscribe: func() (*pubsub.Subscription[string], error) {
				return redisson.NewShardedTopic[string](c, "orders", codec.String()).Subscribe(ctx)
			},
			publish: func() (int64, error) {
				return redisson.NewShardedTopic[string](c, "orders", codec.String()).Publish(ctx, "hello")
			},
			channel: "orders",
			count: func() (int64, error) {
				return redisson.NewShardedTopic[string](c, "orders", codec.String()).CountSubscribers(ctx)
			},
			listeners: func() int { return redisson.NewShardedTopic[string](c, "orders", codec.String()).CountListeners() },
			numsub:    func() int64 { return raw.PubSubShardNumSub(ctx, "orders").Val()["orders"] },
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s1, err := tc.subscribe()
			require.NoError(t, err)
			s2, err := tc.subscribe()
			require.NoError(t, err)
			require.Equal(t, 2, tc.listeners())
			require.EqualValues(t, 1, tc.numsub(), "one Redis subscription for both")
			if tc.count != nil {
				n, err := tc.count()
				require.NoError(t, err)
				require.EqualValues(t, 1, n)
			}
			n, err := tc.publish()
			require.NoError(t, err)
			require.EqualValues(t, 1, n, "receivers: the client's one connection")
			for _, s := range []*pubsub.Subscription[string]{s1, s2} {
				m := next(t, s)
				require.Equal(t, pubsub.Message[string]{Channel: tc.channel, Pattern: tc.pattern, Value: "hello"}, m)
			}
			require.NoError(t, s1.Close())
			require.NoError(t, s2.Close())
			_, open := <-s1.Messages()
			require.False(t, open)
			require.NoError(t, s1.Err(), "closed by Close")
			require.Equal(t, 0, tc.listeners())
			redistest.Eventually(t, receiveWithin, "unsubscribed", func() bool { return tc.numsub() == 0 })
		})
	}
}

// A plain PUBLISH does not reach a sharded subscription, nor SPUBLISH a
// plain one, even of the same name on the same client.
func TestShardedAndPlainAreApart(t *testing.T) {
	srv := redistest.StartServer(t)
	c := redissontest.ClientAt(t, srv.Addr())
	ctx := t.Context()
	plain := redisson.NewTopic[string](c, "orders", codec.String())
	sharded := redisson.NewShardedTopic[string](c, "orders", codec.String())
	ps, err := plain.Subscribe(ctx)
	require.NoError(t, err)
	defer ps.Close()
	ss, err := sharded.Subscribe(ctx)
	require.NoError(t, err)
	defer ss.Close()
	_, err = plain.Publish(ctx, "p1")
	require.NoError(t, err)
	_, err = sharded.Publish(ctx, "s1")
	require.NoError(t, err)
	_, err = plain.Publish(ctx, "p2")
	require.NoError(t, err)
	require.Equal(t, "p1", nextValue(t, ps))
	require.Equal(t, "p2", nextValue(t, ps))
	require.Equal(t, "s1", nextValue(t, ss))
	require.Equal(t, 2, c.Stats().PubSub.Connections, "the plain connection and one shard connection")
	require.Equal(t, 2, c.Stats().PubSub.Topics)
}

// Raw go-redis connections see what each kind sends, byte for byte, and
// each kind receives what a raw connection publishes.
func TestRawMessages(t *testing.T) {
	srv := redistest.StartServer(t)
	c := redissontest.ClientAt(t, srv.Addr())
	raw := redistest.Client(t, srv)
	ctx := t.Context()
	types := codec.NewTypes().MustRegister("com.example.Event", event{})
	cd := codec.JsonJackson(types)
	const wire = `{"@class":"com.example.Event","id":7,"kind":"created"}` // an int64 field is a Java long
	ev := event{ID: 7, Kind: "created"}

	t.Run("topic", func(t *testing.T) {
		all := rawSubscribe(t, raw.PSubscribe(ctx, "*"))
		topic := redisson.NewTopic[event](c, "events", cd)
		n, err := topic.Publish(ctx, ev)
		require.NoError(t, err)
		require.EqualValues(t, 1, n)
		m := rawNext(t, all)
		require.Equal(t, "events", m.Channel)
		require.Equal(t, wire, m.Payload)

		s, err := topic.Subscribe(ctx)
		require.NoError(t, err)
		defer s.Close()
		require.NoError(t, raw.Publish(ctx, "events", wire).Err())
		require.Equal(t, ev, nextValue(t, s))
	})
	t.Run("pattern topic", func(t *testing.T) {
		s, err := redisson.NewPatternTopic[event](c, "events.*", cd).Subscribe(ctx)
		require.NoError(t, err)
		defer s.Close()
		require.NoError(t, raw.Publish(ctx, "events.eu", wire).Err())
		m := next(t, s)
		require.Equal(t, pubsub.Message[event]{Channel: "events.eu", Pattern: "events.*", Value: ev}, m)
	})
	t.Run("sharded topic", func(t *testing.T) {
		all := rawSubscribe(t, raw.PSubscribe(ctx, "*"))
		shard := rawSubscribe(t, raw.SSubscribe(ctx, "sevents"))
		topic := redisson.NewShardedTopic[event](c, "sevents", cd)
		n, err := topic.Publish(ctx, ev)
		require.NoError(t, err)
		require.EqualValues(t, 1, n, "the raw SSUBSCRIBE only")
		m := rawNext(t, shard)
		require.Equal(t, "sevents", m.Channel)
		require.Equal(t, wire, m.Payload)
		require.NoError(t, raw.Publish(ctx, "marker", "m").Err())
		require.Equal(t, "marker", rawNext(t, all).Channel, "PSUBSCRIBE * does not see SPUBLISH")

		s, err := topic.Subscribe(ctx)
		require.NoError(t, err)
		defer s.Close()
		require.NoError(t, raw.SPublish(ctx, "sevents", wire).Err())
		require.Equal(t, ev, nextValue(t, s))
	})
}

type event struct {
	ID   int64  `json:"id"`
	Kind string `json:"kind"`
}

// person is the Go twin of the interop records' Java POJO
// org.goredisson.interop.Person.
type person struct {
	Name   string   `json:"name"`
	Age    int32    `json:"age"`
	ID     *int64   `json:"id"`
	Count  int64    `json:"count"`
	Score  float64  `json:"score"`
	Active bool     `json:"active"`
	Tags   []string `json:"tags"`
	Nick   *string  `json:"nick"`
}

// javaPerson is what Java's RTopic.publish(person) sent with
// JsonJacksonCodec (topics.json, topic.codecs step 7, both versions).
const javaPerson = `{"@class":"org.goredisson.interop.Person","active":true,"age":42,"count":9,"id":["java.lang.Long",7],"name":"Ann","score":1.5,"tags":["java.util.ArrayList",["a","b"]]}`

// A message Java's JsonJacksonCodec wrote decodes into the Go struct, and
// the Go struct is published as the same bytes.
func TestJavaJsonMessage(t *testing.T) {
	srv := redistest.StartServer(t)
	c := redissontest.ClientAt(t, srv.Addr())
	raw := redistest.Client(t, srv)
	ctx := t.Context()
	cd := codec.JsonJackson(codec.NewTypes().MustRegister("org.goredisson.interop.Person", person{}))
	topic := redisson.NewTopic[person](c, "t:json", cd)
	s, err := topic.Subscribe(ctx)
	require.NoError(t, err)
	defer s.Close()
	all := rawSubscribe(t, raw.PSubscribe(ctx, "*"))

	require.NoError(t, raw.Publish(ctx, "t:json", javaPerson).Err())
	got := nextValue(t, s)
	id := int64(7)
	require.Equal(t, person{Name: "Ann", Age: 42, ID: &id, Count: 9, Score: 1.5, Active: true, Tags: []string{"a", "b"}}, got)
	require.Equal(t, javaPerson, rawNext(t, all).Payload)

	_, err = topic.Publish(ctx, got)
	require.NoError(t, err)
	require.Equal(t, javaPerson, rawNext(t, all).Payload, "Go publishes Java's bytes")
	require.Equal(t, got, nextValue(t, s))

	// What the codec cannot decode arrives as an error, not silently dropped.
	require.NoError(t, raw.Publish(ctx, "t:json", `{"@class":"com.example.Other"}`).Err())
	m := next(t, s)
	require.ErrorIs(t, m.Err, codec.ErrDecode)
	require.Contains(t, m.Err.Error(), `topic "t:json": receive: `)
	require.Equal(t, "t:json", m.Channel)
}

// A consumer that has stopped reading loses the messages beyond its buffer,
// counted and marked where they were lost; nothing else is held up.
func TestOverflowDropsAndMarks(t *testing.T) {
	srv := redistest.StartServer(t)
	c := redissontest.ClientAt(t, srv.Addr())
	ctx := t.Context()
	topic := redisson.NewTopic[int64](c, "burst", codec.Long())
	s, err := topic.Subscribe(ctx, pubsub.WithBufferSize(2))
	require.NoError(t, err)
	defer s.Close()
	const total = 20
	for i := range total {
		_, err := topic.Publish(ctx, int64(i))
		require.NoError(t, err)
	}
	// Published in one go to a consumer that reads nothing: all but a few
	// are dropped. Wait until every message is either buffered or dropped.
	redistest.Eventually(t, receiveWithin, "drops counted", func() bool { return s.Dropped() >= total-3 })
	require.EqualValues(t, s.Dropped(), c.Stats().PubSub.TopicDropped)

	var got []int64
	var dropped int64
	for len(got)+int(dropped) < total {
		m := next(t, s)
		if m.Gap != nil {
			require.False(t, m.Gap.Resubscribed)
			require.Positive(t, m.Gap.Dropped)
			dropped += m.Gap.Dropped
			continue
		}
		require.NoError(t, m.Err)
		got = append(got, m.Value)
	}
	require.Equal(t, s.Dropped(), dropped, "the markers account for every drop")
	for i := 1; i < len(got); i++ {
		require.Less(t, got[i-1], got[i], "in publish order")
	}
	// After the overflow the subscription carries on.
	_, err = topic.Publish(ctx, 100)
	require.NoError(t, err)
	require.EqualValues(t, 100, nextValue(t, s))
}

// A parked topic consumer whose buffer is full does not delay a lock
// wake-up on the same client: the unlock message comes after a burst of
// topic messages on the same connection, and the waiter is woken by it and
// acquires while the consumer is still parked.
func TestParkedConsumerDoesNotDelayLockWakeUp(t *testing.T) {
	srv := redistest.StartServer(t)
	c := redissontest.ClientAt(t, srv.Addr())     // the parked consumer and the lock waiter
	other := redissontest.ClientAt(t, srv.Addr()) // the holder: its unlock must travel by pub/sub
	ctx := t.Context()
	topic := redisson.NewTopic[string](c, "feed", codec.String())
	parked, err := topic.Subscribe(ctx, pubsub.WithBufferSize(1))
	require.NoError(t, err)
	defer parked.Close()

	h, err := other.Lock("job").Lock(ctx)
	require.NoError(t, err)
	acquired := make(chan error, 1)
	go func() {
		// Bounded well below the holder's 30 s watchdog lease: only the
		// unlock message can wake the waiter in time.
		wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		wh, err := c.Lock("job").Lock(wctx)
		if err == nil {
			err = wh.Unlock(context.Background())
		}
		acquired <- err
	}()
	redistest.Eventually(t, receiveWithin, "the waiter subscribed", func() bool { return c.Stats().PubSub.Waiters == 1 })

	for i := range 200 {
		_, err := topic.Publish(ctx, "m"+strconv.Itoa(i))
		require.NoError(t, err)
	}
	require.NoError(t, h.Unlock(ctx))
	require.NoError(t, <-acquired)
	require.Positive(t, parked.Dropped(), "the consumer's buffer was full when the waiter was woken")
	require.EqualValues(t, "m0", nextValue(t, parked), "and it is still there, in order")
}

// After a reconnect the subscription is made again and says so with a gap
// marker before the first message that follows.
func TestGapAfterReconnect(t *testing.T) {
	srv := redistest.StartServer(t)
	c := redissontest.ClientAt(t, srv.Addr())
	raw := redistest.Client(t, srv)
	ctx := t.Context()
	for _, kind := range []string{"topic", "sharded topic"} {
		t.Run(kind, func(t *testing.T) {
			var (
				s       *pubsub.Subscription[string]
				err     error
				publish func(string) error
				numsub  func() int64
			)
			if kind == "topic" {
				topic := redisson.NewTopic[string](c, "gap", codec.String())
				s, err = topic.Subscribe(ctx)
				publish = func(v string) error { _, err := topic.Publish(ctx, v); return err }
				numsub = func() int64 { return redistest.NumSub(t, raw, "gap") }
			} else {
				topic := redisson.NewShardedTopic[string](c, "sgap", codec.String())
				s, err = topic.Subscribe(ctx)
				publish = func(v string) error { _, err := topic.Publish(ctx, v); return err }
				numsub = func() int64 { return raw.PubSubShardNumSub(ctx, "sgap").Val()["sgap"] }
			}
			require.NoError(t, err)
			defer s.Close()
			require.NoError(t, publish("before"))
			require.Equal(t, "before", nextValue(t, s))

			require.NoError(t, raw.Do(ctx, "CLIENT", "KILL", "TYPE", "pubsub").Err())
			redistest.Eventually(t, receiveWithin, "resubscribed", func() bool { return numsub() == 1 })
			// The hub may replace the connection once more after the
			// first resubscription (a message published in between is
			// lost, as at-most-once allows): publish until one arrives.
			var got []pubsub.Message[string]
			redistest.Eventually(t, receiveWithin, "a message after the reconnect", func() bool {
				require.NoError(t, publish("after"))
				for {
					select {
					case m := <-s.Messages():
						got = append(got, m)
						if m.Gap == nil {
							return true
						}
					case <-time.After(50 * time.Millisecond):
						return false
					}
				}
			})
			require.NotNil(t, got[0].Gap, "a gap marker first")
			require.True(t, got[0].Gap.Resubscribed)
			for _, m := range got[1 : len(got)-1] {
				require.NotNil(t, m.Gap, "only markers before the message")
			}
			require.Equal(t, pubsub.Message[string]{Channel: got[len(got)-1].Channel, Value: "after"}, got[len(got)-1])
		})
	}
}

// On a cluster a sharded subscription follows its slot to another master.
func TestShardedFollowsSlotMove(t *testing.T) {
	cl := redistest.StartCluster(t, 3)
	c := newClusterClient(t, cl)
	ctx := t.Context()
	topic := redisson.NewShardedTopic[string](c, "orders", codec.String())
	s, err := topic.Subscribe(ctx)
	require.NoError(t, err)
	defer s.Close()
	n, err := topic.Publish(ctx, "o1")
	require.NoError(t, err)
	require.EqualValues(t, 1, n)
	require.Equal(t, "o1", nextValue(t, s))

	sl := slot.Of("orders")
	from, err := cl.MasterOf(ctx, sl)
	require.NoError(t, err)
	var to *redistest.Server
	for _, m := range cl.Masters {
		if m != from {
			to = m
			break
		}
	}
	require.NoError(t, cl.MoveSlot(ctx, sl, from, to))
	m := next(t, s)
	require.NotNil(t, m.Gap, "the move is a gap")
	require.True(t, m.Gap.Resubscribed)
	redistest.Eventually(t, receiveWithin, "subscribed on the new master", func() bool {
		n, err := topic.CountSubscribers(ctx)
		return err == nil && n == 1
	})
	n, err = topic.Publish(ctx, "o2")
	require.NoError(t, err)
	require.EqualValues(t, 1, n)
	require.Equal(t, "o2", nextValue(t, s))
}

// The client's Close ends subscriptions with ErrClosed; later calls fail
// with it.
func TestClose(t *testing.T) {
	srv := redistest.StartServer(t)
	rdb := redistest.Client(t, srv)
	c, err := redisson.New(rdb)
	require.NoError(t, err)
	ctx := t.Context()
	topic := redisson.NewTopic[string](c, "news", codec.String())
	s, err := topic.Subscribe(ctx)
	require.NoError(t, err)
	require.NoError(t, c.Close())
	_, open := <-s.Messages()
	require.False(t, open)
	require.ErrorIs(t, s.Err(), redisson.ErrClosed)
	require.EqualError(t, s.Err(), `topic "news": receive: client is closed`)
	require.NoError(t, s.Close())

	_, err = topic.Publish(ctx, "x")
	require.ErrorIs(t, err, redisson.ErrClosed)
	require.EqualError(t, err, `topic "news": publish: client is closed`)
	_, err = topic.Subscribe(ctx)
	require.ErrorIs(t, err, redisson.ErrClosed)
	_, err = redisson.NewShardedTopic[string](c, "s", codec.String()).Subscribe(ctx)
	require.ErrorIs(t, err, redisson.ErrClosed)
}

// A Subscribe whose ctx ends before the confirmation leaves no
// subscription behind.
func TestSubscribeCancelled(t *testing.T) {
	srv := redistest.StartServer(t)
	c := redissontest.ClientAt(t, srv.Addr())
	raw := redistest.Client(t, srv)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := redisson.NewTopic[string](c, "news", codec.String()).Subscribe(ctx)
	require.ErrorIs(t, err, context.Canceled)
	require.EqualError(t, err, `topic "news": subscribe: context canceled`)
	require.Equal(t, 0, c.Stats().PubSub.Topics)
	// Whatever reached Redis is undone: a later subscription confirms
	// behind the unsubscribe, and after its Close nothing is left.
	s, err := redisson.NewTopic[string](c, "other", codec.String()).Subscribe(t.Context())
	require.NoError(t, err)
	require.NoError(t, s.Close())
	redistest.Eventually(t, receiveWithin, "nothing subscribed", func() bool {
		return redistest.NumSub(t, raw, "news") == 0 && c.Stats().PubSub.Channels == 0
	})
}

func TestInvalid(t *testing.T) {
	srv := redistest.StartServer(t)
	c := redissontest.ClientAt(t, srv.Addr())
	ctx := t.Context()
	cases := []struct {
		name string
		err  error
		want error
		text string
	}{
		{"empty name", first(redisson.NewTopic[string](c, "", codec.String()).Publish(ctx, "x")), redisson.ErrInvalidName,
			`topic "": publish: invalid name: the name must not be empty`},
		{"empty pattern", second(redisson.NewPatternTopic[string](c, "", codec.String()).Subscribe(ctx)), redisson.ErrInvalidName,
			`pattern topic "": subscribe: invalid name: the name must not be empty`},
		{"nil codec", second(redisson.NewShardedTopic[string](c, "s", nil).Subscribe(ctx)), redisson.ErrInvalidArgument,
			`sharded topic "s": subscribe: invalid argument: nil codec`},
		{"buffer", second(redisson.NewTopic[string](c, "t", codec.String()).Subscribe(ctx, pubsub.WithBufferSize(0))), redisson.ErrInvalidArgument,
			`topic "t": subscribe: invalid argument: the buffer size must be at least 1, got 0`},
		{"nil source", first(pubsub.NewTopic[string](nil, "t", codec.String()).CountSubscribers(ctx)), redisson.ErrInvalidArgument,
			`topic "t": count subscribers: invalid argument: nil Source (get topics from a redisson.Client)`},
		{"encode", first(redisson.NewTopic[any](c, "news", codec.JsonJackson(nil)).Publish(ctx, time.Second)), codec.ErrEncode, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			require.ErrorIs(t, tc.err, tc.want)
			if tc.text != "" {
				require.EqualError(t, tc.err, tc.text)
			} else {
				require.Contains(t, tc.err.Error(), `topic "news": publish: codec JsonJackson: cannot encode: `)
			}
		})
	}
}

func first[A any](_ A, err error) error { return err }

func second[A any](_ A, err error) error { return err }
