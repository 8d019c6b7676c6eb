// Package pubsub holds Redisson's topics, wire-identical with Java: Topic
// (RTopic: PUBLISH / SUBSCRIBE), PatternTopic (RPatternTopic: PSUBSCRIBE)
// and ShardedTopic (RShardedTopic: SPUBLISH / SSUBSCRIBE, Redis 7+). A Java
// service calling redisson.getTopic(name, codec) and a Go service using the
// same name and an equivalent codec (see package codec) publish and receive
// the same bytes on the same channel.
//
// Make topics from a client's Source: NewTopic[T](client.Source(), name,
// codec) and its kin, or redisson.NewTopic[T](client, name, codec), the
// same constructor spelled shorter. Their subscriptions ride the client's pub/sub hub,
// the connections its lock waiters use, and are made again after a
// reconnect, a failover or a slot move.
//
// Delivery is at most once, as with Redis pub/sub itself: a message
// published while a subscription is down (between a connection's loss and
// its resubscription) is lost. A subscription says so with a gap marker, a
// Message whose Gap is set, at the place in its stream where messages may
// be missing. Each subscription has a bounded buffer (WithBufferSize,
// default DefaultBufferSize); when its consumer falls that far behind,
// newer messages are dropped and counted (a gap marker with Gap.Dropped),
// so a slow consumer never holds up the connection that wakes the client's
// lock waiters, nor any other subscription.
//
// ReliableTopic (RReliableTopic) is the at-least-once kind: a stream under
// the topic's name, each subscription a consumer group of its own read with
// XREADGROUP BLOCK on a connection of its own (not the hub), acknowledged
// once the consumer received the message; it never drops (a slow consumer
// holds up its own subscription only).
//
// Handles are cheap and safe for concurrent use. Every call takes a context
// first and returns the errors of package redisson: ErrInvalidName for an
// empty name, ErrInvalidArgument for a nil codec or a bad option, ErrClosed
// after the Client's Close; codec errors wrap codec.ErrEncode or
// codec.ErrDecode. Errors read `<kind> "<name>": <operation>: <cause>`.
package pubsub

import (
	"context"
	"fmt"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/internal/handle"
	"github.com/goredisson/redisson/internal/hub"
	"github.com/goredisson/redisson/source"
)

// backend is what the topics use of a client: its go-redis client, its
// subscription hub and its lifetime.
type backend struct {
	rdb  redis.UniversalClient
	hub  *hub.Hub
	life context.Context // done with cause ErrClosed when the client closes
}

// backendOf returns src's backend; nil for a nil or zero src, whose topics
// fail every call with ErrInvalidArgument.
func backendOf(src *source.Source) *backend {
	rt := (*handle.Source)(src).Runtime()
	if rt == nil {
		return nil
	}
	return &backend{rdb: rt.Redis(), hub: rt.Hub(), life: rt.Lifetime()}
}

// DefaultBufferSize is the number of messages a subscription holds for its
// consumer before it drops newer ones.
const DefaultBufferSize = 1024

// SubscribeOption configures one subscription.
type SubscribeOption func(*subscribeOptions)

type subscribeOptions struct {
	buffer int
}

// WithBufferSize sets how many received messages a subscription holds while
// its consumer is busy, at least 1 (default DefaultBufferSize). Beyond
// that, newer messages are dropped, counted in Subscription.Dropped and in
// the client's Stats, and reported by a gap marker.
func WithBufferSize(n int) SubscribeOption {
	return func(o *subscribeOptions) { o.buffer = n }
}

func applySubscribeOptions(opts []SubscribeOption) (subscribeOptions, error) {
	o := subscribeOptions{buffer: DefaultBufferSize}
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	if o.buffer < 1 {
		return o, fmt.Errorf("%w: the buffer size must be at least 1, got %d", core.ErrInvalidArgument, o.buffer)
	}
	return o, nil
}
