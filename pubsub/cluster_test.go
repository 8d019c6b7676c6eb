package pubsub_test

import (
	"fmt"
	"strconv"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/codec"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/internal/slot"
	"github.com/goredisson/redisson/pubsub"
)

// On a cluster a topic publishes on the master of its channel's slot, as
// Redisson does: one publisher's messages arrive in the order sent, at every
// subscriber wherever it is connected (the cluster bus forwards them from
// that master), and each publish counts what Java's would, the subscribers
// connected to that master.
func TestClusterPublishOnChannelMaster(t *testing.T) {
	const n = 500
	cl := redistest.StartCluster(t, 3)
	for _, tc := range []struct {
		what, channel, pattern string
	}{
		{"plain name", "quotes", "quo*"},
		{"hash-tagged name", "{prices}.eur", "{prices}.*"},
	} {
		t.Run(tc.what, func(t *testing.T) {
			ctx := t.Context()
			home, err := cl.MasterOf(ctx, slot.Of(tc.channel))
			require.NoError(t, err)
			homeClient := redistest.Client(t, home)

			// Where Redisson subscribes: on the master of the channel's
			// slot. Three of them, so that no other master's count can
			// equal this one's by chance.
			var raw []*redis.PubSub
			for range 3 {
				raw = append(raw, rawSubscribe(t, homeClient.Subscribe(ctx, tc.channel)))
			}
			// One on another master, reached through the cluster bus only.
			raw = append(raw, rawSubscribe(t, redistest.Client(t, otherMaster(cl, home)).Subscribe(ctx, tc.channel)))
			// Two topic subscribers and a pattern subscriber, each from a
			// client of its own.
			var subs []*pubsub.Subscription[string]
			for range 2 {
				s, err := redisson.NewTopic[string](newClusterClient(t, cl), tc.channel, codec.String()).Subscribe(ctx)
				require.NoError(t, err)
				t.Cleanup(func() { _ = s.Close() })
				subs = append(subs, s)
			}
			ps, err := redisson.NewPatternTopic[string](newClusterClient(t, cl), tc.pattern, codec.String()).Subscribe(ctx)
			require.NoError(t, err)
			t.Cleanup(func() { _ = ps.Close() })
			subs = append(subs, ps)

			// What Java's publish returns: the subscriptions on the
			// channel's master that the message matches.
			topic := redisson.NewTopic[string](newClusterClient(t, cl), tc.channel, codec.String())
			numsub, err := topic.CountSubscribers(ctx)
			require.NoError(t, err)
			numpat, err := homeClient.PubSubNumPat(ctx).Result()
			require.NoError(t, err)
			want := numsub + numpat
			require.GreaterOrEqual(t, want, int64(3))

			wrongCounts := 0
			for i := range n {
				got, err := topic.Publish(ctx, strconv.Itoa(i))
				require.NoError(t, err)
				if got != want {
					wrongCounts++
				}
			}

			var report []string
			for k, s := range subs {
				seq := make([]int, n)
				for i := range seq {
					seq[i] = atoi(t, nextValue(t, s))
				}
				report = append(report, orderReport(fmt.Sprintf("subscription %d", k), seq)...)
			}
			for k, r := range raw {
				seq := make([]int, n)
				for i := range seq {
					seq[i] = atoi(t, rawNext(t, r).Payload)
				}
				report = append(report, orderReport(fmt.Sprintf("raw subscriber %d", k), seq)...)
			}
			assert.Zero(t, wrongCounts, "%d of %d publishes did not count %d receivers", wrongCounts, n, want)
			require.Empty(t, report, "messages out of order")
		})
	}
}

// otherMaster returns a master of cl other than m.
func otherMaster(cl *redistest.Cluster, m *redistest.Server) *redistest.Server {
	for _, o := range cl.Masters {
		if o != m {
			return o
		}
	}
	return nil
}

// orderReport says, when seq is not 0, 1, …, how many values arrived
// elsewhere than their place and how many after a later one.
func orderReport(who string, seq []int) []string {
	misplaced, overtaken, highest := 0, 0, -1
	for i, v := range seq {
		if v != i {
			misplaced++
		}
		if v < highest {
			overtaken++
		}
		highest = max(highest, v)
	}
	if misplaced == 0 {
		return nil
	}
	return []string{fmt.Sprintf("%s: %d of %d out of place, %d after a later one", who, misplaced, len(seq), overtaken)}
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	v, err := strconv.Atoi(s)
	require.NoError(t, err)
	return v
}
