package pubsub

import (
	"context"
	"errors"
	"fmt"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson/codec"
	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/internal/hub"
	"github.com/goredisson/redisson/source"
)

// topic is what every topic kind has: its name, codec, client, and how its
// errors name it.
type topic[T any] struct {
	kind  string // "topic", "pattern topic", "sharded topic"
	sub   hub.Kind
	name  string
	codec codec.Codec
	src   *backend
	err   error // the constructor's: an empty name, a nil codec or Source
}

func newTopic[T any](kind string, sub hub.Kind, src *source.Source, name string, cd codec.Codec) topic[T] {
	t := topic[T]{kind: kind, sub: sub, name: name, codec: cd, src: backendOf(src)}
	switch {
	case name == "":
		t.err = fmt.Errorf("%w: the name must not be empty", core.ErrInvalidName)
	case cd == nil:
		t.err = fmt.Errorf("%w: nil codec", core.ErrInvalidArgument)
	case t.src == nil || t.src.hub == nil:
		t.err = fmt.Errorf("%w: nil Source (get topics from a redisson.Client)", core.ErrInvalidArgument)
	}
	return t
}

// fail names the topic and op in err.
func (t *topic[T]) fail(op string, err error) error {
	if err == nil {
		return nil
	}
	return &core.ObjectError{Kind: t.kind, Name: t.name, Op: op, Err: err}
}

// check returns why a call cannot be made: an invalid handle, or a closed
// client.
func (t *topic[T]) check(op string) error {
	if t.err != nil {
		return t.fail(op, t.err)
	}
	if t.src.life.Err() != nil {
		return t.fail(op, context.Cause(t.src.life))
	}
	return nil
}

// publish sends msg with PUBLISH or SPUBLISH, on a cluster to the master
// of the name's slot, and returns Redis' receiver count, as Java's publish
// does.
func (t *topic[T]) publish(ctx context.Context, msg T) (int64, error) {
	const op = "publish"
	if err := t.check(op); err != nil {
		return 0, err
	}
	data, err := t.codec.Encode(msg)
	if err != nil {
		return 0, t.fail(op, err)
	}
	command := "publish"
	if t.sub == hub.Shard {
		command = "spublish"
	}
	cmd := redis.NewIntCmd(ctx, command, t.name, data)
	// go-redis sends a keyless PUBLISH to any cluster node, so one
	// publisher's messages would race each other over the cluster bus and
	// the count would be another node's. Redisson routes it by the channel
	// name, to the master of its slot; so does this.
	cmd.SetFirstKeyPos(1)
	if err := t.src.rdb.Process(ctx, cmd); err != nil {
		return 0, t.fail(op, err)
	}
	return cmd.Val(), nil
}

// countSubscribers asks the master of the name's slot (on a cluster, as
// Redisson routes it; else the server) for PUBSUB NUMSUB or SHARDNUMSUB.
func (t *topic[T]) countSubscribers(ctx context.Context) (int64, error) {
	const op = "count subscribers"
	if err := t.check(op); err != nil {
		return 0, err
	}
	var node redis.Cmdable = t.src.rdb
	if cc, ok := t.src.rdb.(*redis.ClusterClient); ok {
		m, err := cc.MasterForKey(ctx, t.name)
		if err != nil {
			return 0, t.fail(op, err)
		}
		node = m
	}
	var counts map[string]int64
	var err error
	if t.sub == hub.Shard {
		counts, err = node.PubSubShardNumSub(ctx, t.name).Result()
	} else {
		counts, err = node.PubSubNumSub(ctx, t.name).Result()
	}
	if err != nil {
		return 0, t.fail(op, err)
	}
	return counts[t.name], nil
}

// countListeners is Java's countListeners: this client's live
// subscriptions of the topic.
func (t *topic[T]) countListeners() int {
	if t.err != nil {
		return 0
	}
	return t.src.hub.Listeners(t.sub, t.name)
}

// subscribe registers a subscription with the hub, confirmed by Redis
// before it returns.
func (t *topic[T]) subscribe(ctx context.Context, opts []SubscribeOption) (*Subscription[T], error) {
	const op = "subscribe"
	if err := t.check(op); err != nil {
		return nil, err
	}
	o, err := applySubscribeOptions(opts)
	if err != nil {
		return nil, t.fail(op, err)
	}
	s := newSubscription(t, o.buffer)
	l, err := t.src.hub.Listen(ctx, t.sub, t.name, s.q)
	if err != nil {
		if errors.Is(err, hub.ErrClosed) || t.src.life.Err() != nil {
			err = context.Cause(t.src.life)
			if err == nil {
				err = core.ErrClosed
			}
		}
		return nil, t.fail(op, err)
	}
	s.start(l)
	return s, nil
}

// Topic is Redisson's RTopic<T>: messages of type T published to the
// channel name (the name as it is, no prefix or hash tag) with PUBLISH,
// encoded with a codec both sides use, and received with SUBSCRIBE.
type Topic[T any] struct{ t topic[T] }

// NewTopic returns the topic called name on src, encoded with cd
// (redisson.NewTopic). An empty name, a nil codec or a nil Source gives a
// handle whose every call fails (ErrInvalidName, ErrInvalidArgument).
func NewTopic[T any](src *source.Source, name string, cd codec.Codec) *Topic[T] {
	return &Topic[T]{newTopic[T]("topic", hub.Channel, src, name, cd)}
}

// Name returns the topic's name, which is also its channel.
func (t *Topic[T]) Name() string { return t.t.name }

// Publish sends msg to every subscriber of the topic (PUBLISH name
// <encoded msg>) and returns how many received it, as Redis counts them
// (every subscribed connection, Java's and Go's, and pattern subscriptions
// that match). On a cluster it goes, as Redisson's does, to the master of
// the name's slot: one publisher's messages arrive in the order sent, and
// the count is that master's subscribers (the cluster bus forwards the
// message to the other nodes' subscribers, who are not counted).
func (t *Topic[T]) Publish(ctx context.Context, msg T) (receivers int64, err error) {
	return t.t.publish(ctx, msg)
}

// Subscribe subscribes to the topic and returns once Redis has confirmed
// the subscription, so a message published after it returns is received.
// A ctx done before that leaves no subscription behind. Close the
// subscription when done. Options: WithBufferSize.
func (t *Topic[T]) Subscribe(ctx context.Context, opts ...SubscribeOption) (*Subscription[T], error) {
	return t.t.subscribe(ctx, opts)
}

// CountSubscribers returns how many connections subscribe to the channel
// (PUBSUB NUMSUB), Java's countSubscribers.
func (t *Topic[T]) CountSubscribers(ctx context.Context) (int64, error) {
	return t.t.countSubscribers(ctx)
}

// CountListeners returns how many live subscriptions of the topic this
// client has (Java's countListeners); they share one Redis subscription.
func (t *Topic[T]) CountListeners() int { return t.t.countListeners() }

// PatternTopic is Redisson's RPatternTopic<T>: a subscription (PSUBSCRIBE)
// to every channel whose name matches a glob pattern (`news.*`); each
// message says which channel it came from. Publish to one channel of it
// with a Topic.
type PatternTopic[T any] struct{ t topic[T] }

// NewPatternTopic returns the pattern topic of pattern on src, decoded
// with cd (redisson.NewPatternTopic). An empty pattern, a nil codec or a
// nil Source gives a handle whose every call fails.
func NewPatternTopic[T any](src *source.Source, pattern string, cd codec.Codec) *PatternTopic[T] {
	return &PatternTopic[T]{newTopic[T]("pattern topic", hub.Pattern, src, pattern, cd)}
}

// Pattern returns the topic's pattern.
func (t *PatternTopic[T]) Pattern() string { return t.t.name }

// Subscribe subscribes to the pattern (PSUBSCRIBE) and returns once Redis
// has confirmed it; each Message carries its Channel and the Pattern. As
// Topic.Subscribe otherwise.
func (t *PatternTopic[T]) Subscribe(ctx context.Context, opts ...SubscribeOption) (*Subscription[T], error) {
	return t.t.subscribe(ctx, opts)
}

// CountListeners returns how many live subscriptions of the pattern this
// client has.
func (t *PatternTopic[T]) CountListeners() int { return t.t.countListeners() }

// ShardedTopic is Redisson's RShardedTopic<T> (Redis 7+): SPUBLISH and
// SSUBSCRIBE on the channel name, which a cluster keeps on the master of
// the name's slot. Redisson uses SPUBLISH on a single node too, and so does
// ShardedTopic. Plain PUBLISH does not reach its subscribers, nor SPUBLISH
// a Topic's. On a cluster, subscriptions follow the slot when it moves or
// its master fails over.
type ShardedTopic[T any] struct{ t topic[T] }

// NewShardedTopic returns the sharded topic called name on src, encoded
// with cd (redisson.NewShardedTopic). An empty name, a nil codec or a
// nil Source gives a handle whose every call fails.
func NewShardedTopic[T any](src *source.Source, name string, cd codec.Codec) *ShardedTopic[T] {
	return &ShardedTopic[T]{newTopic[T]("sharded topic", hub.Shard, src, name, cd)}
}

// Name returns the topic's name, which is also its shard channel.
func (t *ShardedTopic[T]) Name() string { return t.t.name }

// Publish sends msg to every subscriber (SPUBLISH name <encoded msg>) and
// returns how many received it: the shard channel's subscribers only.
func (t *ShardedTopic[T]) Publish(ctx context.Context, msg T) (receivers int64, err error) {
	return t.t.publish(ctx, msg)
}

// Subscribe subscribes to the shard channel (SSUBSCRIBE) and returns once
// Redis has confirmed it. As Topic.Subscribe otherwise.
func (t *ShardedTopic[T]) Subscribe(ctx context.Context, opts ...SubscribeOption) (*Subscription[T], error) {
	return t.t.subscribe(ctx, opts)
}

// CountSubscribers returns how many connections subscribe to the shard
// channel (PUBSUB SHARDNUMSUB on the master of its slot).
func (t *ShardedTopic[T]) CountSubscribers(ctx context.Context) (int64, error) {
	return t.t.countSubscribers(ctx)
}

// CountListeners returns how many live subscriptions of the topic this
// client has.
func (t *ShardedTopic[T]) CountListeners() int { return t.t.countListeners() }
