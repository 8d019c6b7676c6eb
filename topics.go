package redisson

import (
	"github.com/goredisson/redisson/codec"
	"github.com/goredisson/redisson/pubsub"
)

// NewTopic returns the topic called name (Redisson's getTopic(name,
// codec)): messages of type T published with PUBLISH to the channel name,
// encoded with cd, which must match the codec of the Java services sharing
// it (see package codec). On a cluster it publishes, as Redisson does, on
// the master of the name's slot. Its subscriptions ride the client's pub/sub
// hub.
// A Go method cannot have type parameters, hence a function. After c.Close
// every call fails with ErrClosed and subscriptions end.
func NewTopic[T any](c *Client, name string, cd codec.Codec) *pubsub.Topic[T] {
	return pubsub.NewTopic[T](c.Source(), name, cd)
}

// NewPatternTopic returns the pattern topic of pattern (Redisson's
// getPatternTopic(pattern, codec)): a PSUBSCRIBE to every channel matching
// the glob pattern, messages decoded with cd.
func NewPatternTopic[T any](c *Client, pattern string, cd codec.Codec) *pubsub.PatternTopic[T] {
	return pubsub.NewPatternTopic[T](c.Source(), pattern, cd)
}

// NewShardedTopic returns the sharded topic called name (Redisson's
// getShardedTopic(name, codec), Redis 7+): SPUBLISH and SSUBSCRIBE on the
// shard channel name, whatever the client's PublishMode.
func NewShardedTopic[T any](c *Client, name string, cd codec.Codec) *pubsub.ShardedTopic[T] {
	return pubsub.NewShardedTopic[T](c.Source(), name, cd)
}

// NewReliableTopic returns the reliable topic called name (Redisson's
// getReliableTopic(name, codec)): a stream under name with at-least-once
// delivery to every subscriber, each subscriber a consumer group registered
// in {name}:timeout, messages encoded with cd. Each subscription reads with
// XREADGROUP BLOCK on one connection of its own (never one of the shared
// pool). See docs/topics.md.
func NewReliableTopic[T any](c *Client, name string, cd codec.Codec) *pubsub.ReliableTopic[T] {
	return pubsub.NewReliableTopic[T](c.Source(), name, cd)
}
