package pubsub_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/codec"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/internal/slot"
	"github.com/goredisson/redisson/pubsub"
)

// failoverWithin bounds a cluster failover: node timeout (2 s), the
// replica's election, and the client's slot map catching up. A hang guard,
// not a timing assertion.
const failoverWithin = 60 * time.Second

// nextWithin is next with a longer bound, for what follows a failover.
func nextWithin[T any](t testing.TB, s *pubsub.Subscription[T], d time.Duration) pubsub.Message[T] {
	t.Helper()
	select {
	case m, ok := <-s.Messages():
		require.True(t, ok, "subscription ended: %v", s.Err())
		return m
	case <-time.After(d):
		t.Fatalf("no message within %v", d)
	}
	return pubsub.Message[T]{}
}

// A sharded topic's subscription on a cluster lives through its slot moving
// to another master and then through that master's failover (SIGKILL, its
// replica promoted): each time the subscriber gets a gap marker
// (Gap.Resubscribed) before anything published afterwards, is subscribed
// again where the slot lives now, and receives what is published there;
// the subscription never ends and nothing is delivered twice. A plain
// topic and a pattern topic live through the failover of the master their
// connection is on the same way.
func TestShardedSurvivesSlotMoveAndFailover(t *testing.T) {
	cl := redistest.StartClusterWithReplicas(t, 3)
	c := newClusterClient(t, cl)
	ctx := t.Context()
	const name = "orders"
	topic := redisson.NewShardedTopic[string](c, name, codec.String())
	s, err := topic.Subscribe(ctx)
	require.NoError(t, err)
	defer s.Close()
	n, err := topic.Publish(ctx, "m1")
	require.NoError(t, err)
	require.EqualValues(t, 1, n)
	require.Equal(t, "m1", nextValue(t, s))

	// The slot moves: Redis drops the subscription (sunsubscribe), the hub
	// subscribes on the new master.
	sl := slot.Of(name)
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
	toRaw := redistest.Client(t, to)
	redistest.Eventually(t, receiveWithin, "subscribed on the slot's new master", func() bool {
		return shardNumSub(t, toRaw, name) == 1
	})
	n, err = topic.Publish(ctx, "m2")
	require.NoError(t, err)
	require.EqualValues(t, 1, n)
	require.Equal(t, "m2", nextValue(t, s))

	// A plain and a pattern subscription: they share the hub's plain
	// connection, on whichever node go-redis picked (a replica too). The
	// channel's slot is not on the master about to die, so that PUBLISH,
	// which go-redis sends to that slot's master, works after the kills.
	var plainName string
	for i := 0; plainName == ""; i++ {
		cand := fmt.Sprintf("news-%d", i)
		if m, err := cl.MasterOf(ctx, slot.Of(cand)); err == nil && m != to {
			plainName = cand
		}
	}
	plain := redisson.NewTopic[string](c, plainName, codec.String())
	ps, err := plain.Subscribe(ctx)
	require.NoError(t, err)
	defer ps.Close()
	pattern := redisson.NewPatternTopic[string](c, "news-*", codec.String())
	pp, err := pattern.Subscribe(ctx)
	require.NoError(t, err)
	defer pp.Close()
	var plainNode *redistest.Server
	for _, m := range append(append([]*redistest.Server(nil), cl.Masters...), cl.Replicas...) {
		r := redistest.Client(t, m)
		if redistest.NumSub(t, r, plainName) == 1 {
			require.EqualValues(t, 1, patternCount(t, r), "one connection for both")
			plainNode = m
		}
	}
	require.NotNil(t, plainNode, "the plain connection is on a node of the cluster")
	// PUBLISH counts the receivers of the node that took it only (the
	// cluster bus carries it to the others): check the deliveries.
	_, err = plain.Publish(ctx, "p1")
	require.NoError(t, err)
	require.Equal(t, "p1", nextValue(t, ps))
	require.Equal(t, "p1", nextValue(t, pp))

	// The master now serving the slot dies; its replica takes over.
	replica := cl.ReplicaOf(to)
	require.NotNil(t, replica)
	require.NoError(t, to.Kill())
	redistest.Eventually(t, failoverWithin, "the replica took over", func() bool {
		return redistest.IsMaster(ctx, replica)
	})
	m = nextWithin(t, s, failoverWithin)
	require.NotNil(t, m.Gap, "the failover is a gap, got %+v", m)
	require.True(t, m.Gap.Resubscribed)
	replicaRaw := redistest.Client(t, replica)
	redistest.Eventually(t, failoverWithin, "subscribed on the promoted replica", func() bool {
		return shardNumSub(t, replicaRaw, name) == 1
	})
	// The publishing client follows the failover too: publish until the
	// subscriber is counted. A publish that failed on the way (the old
	// master) reached nobody.
	var last string
	redistest.Eventually(t, failoverWithin, "a publish reaches the subscriber after the failover", func() bool {
		last = fmt.Sprintf("m3-%d", time.Now().UnixNano())
		n, err := topic.Publish(ctx, last)
		return err == nil && n == 1
	})
	for {
		m := nextWithin(t, s, receiveWithin)
		require.Nil(t, m.Gap, "one gap marker per gap")
		require.NoError(t, m.Err)
		require.True(t, strings.HasPrefix(m.Value, "m3-"), "nothing from before the failover again: %q", m.Value)
		if m.Value == last {
			break
		}
	}
	require.NoError(t, s.Err(), "the subscription is still open")
	require.Equal(t, 1, topic.CountListeners())

	if plainNode != to {
		// The plain connection's node dies too; a master's replica takes
		// over.
		require.NoError(t, plainNode.Kill())
		if r := cl.ReplicaOf(plainNode); r != nil {
			redistest.Eventually(t, failoverWithin, "the plain connection's replica took over", func() bool {
				return redistest.IsMaster(ctx, r)
			})
		}
	}
	for _, sub := range []*pubsub.Subscription[string]{ps, pp} {
		m := nextWithin(t, sub, failoverWithin)
		require.NotNil(t, m.Gap, "the failover is a gap for the plain connection too, got %+v", m)
		require.True(t, m.Gap.Resubscribed)
	}
	// Subscribed again on a live node (a master or a replica: PUBLISH
	// reaches every node of a cluster).
	var seen []string
	resubscribed := func() bool {
		seen = seen[:0]
		for _, m := range append(append([]*redistest.Server(nil), cl.Masters...), cl.Replicas...) {
			if m == to || m == plainNode {
				continue
			}
			r := m.NewClient()
			numsub, _ := r.PubSubNumSub(ctx, plainName).Result()
			numpat, _ := r.PubSubNumPat(ctx).Result()
			r.Close()
			seen = append(seen, fmt.Sprintf("%s: numsub %d numpat %d", m, numsub[plainName], numpat))
			if numsub[plainName] == 1 && numpat == 1 {
				return true
			}
		}
		return false
	}
	for deadline := time.Now().Add(failoverWithin); !resubscribed(); {
		if time.Now().After(deadline) {
			t.Fatalf("the plain connection is not subscribed on a live node after %v: %s (killed %s and %s)",
				failoverWithin, strings.Join(seen, "; "), to, plainNode)
		}
		time.Sleep(50 * time.Millisecond)
	}
	redistest.Eventually(t, failoverWithin, "a publish goes through after the failover", func() bool {
		last = fmt.Sprintf("p2-%d", time.Now().UnixNano())
		_, err := plain.Publish(ctx, last)
		return err == nil
	})
	for _, sub := range []*pubsub.Subscription[string]{ps, pp} {
		for {
			m := nextWithin(t, sub, receiveWithin)
			require.Nil(t, m.Gap, "one gap marker per gap")
			require.True(t, strings.HasPrefix(m.Value, "p2-"), "nothing from before the failover again: %q", m.Value)
			if m.Value == last {
				break
			}
		}
		require.NoError(t, sub.Err())
	}
}

// patternCount is PUBSUB NUMPAT on one node.
func patternCount(t testing.TB, node *redis.Client) int64 {
	t.Helper()
	n, err := node.PubSubNumPat(t.Context()).Result()
	require.NoError(t, err)
	return n
}

// shardNumSub is PUBSUB SHARDNUMSUB channel on one node (-1 when the node
// does not answer).
func shardNumSub(t testing.TB, node *redis.Client, channel string) int64 {
	t.Helper()
	n, err := node.PubSubShardNumSub(t.Context(), channel).Result()
	if err != nil {
		return -1
	}
	return n[channel]
}
