package objinfo

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/redis/go-redis/v9"
)

// Subscribers counts the subscribers of each channel: PUBSUB NUMSUB (in a
// cluster summed over every node, since plain pub/sub spans the cluster) and
// PUBSUB SHARDNUMSUB (in a cluster asked of the master owning the channel's
// slot).
func Subscribers(ctx context.Context, rdb redis.UniversalClient, channels []string) ([]ChannelSub, error) {
	out := make([]ChannelSub, len(channels))
	for i, c := range channels {
		out[i].Channel = c
	}
	if c, ok := rdb.(*redis.ClusterClient); ok {
		return out, clusterSubscribers(ctx, c, channels, out)
	}
	plain, err := rdb.PubSubNumSub(ctx, channels...).Result()
	if err != nil {
		return nil, fmt.Errorf("PUBSUB NUMSUB: %w", err)
	}
	shard, err := rdb.PubSubShardNumSub(ctx, channels...).Result()
	if err != nil && !isRedisError(err) {
		return nil, fmt.Errorf("PUBSUB SHARDNUMSUB: %w", err)
	}
	for i := range out {
		out[i].Subscribers = plain[out[i].Channel]
		if err == nil {
			n := shard[out[i].Channel]
			out[i].ShardSubscribers = &n
		}
	}
	return out, nil
}

// clusterSubscribers fills in out (one entry per channel) on a cluster.
func clusterSubscribers(ctx context.Context, c *redis.ClusterClient, channels []string, out []ChannelSub) error {
	var mu sync.Mutex
	plain := map[string]int64{}
	err := c.ForEachShard(ctx, func(ctx context.Context, node *redis.Client) error {
		m, err := node.PubSubNumSub(ctx, channels...).Result()
		if err != nil {
			return err
		}
		mu.Lock()
		defer mu.Unlock()
		for k, v := range m {
			plain[k] += v
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("PUBSUB NUMSUB: %w", err)
	}
	// SHARDNUMSUB answers for the node's own shard channels: one
	// command per master, for the channels of its slots.
	type group struct {
		node *redis.Client
		idx  []int
	}
	var groups []*group
	byAddr := map[string]*group{}
	for i := range out {
		out[i].Subscribers = plain[out[i].Channel]
		node, err := c.MasterForKey(ctx, out[i].Channel)
		if err != nil {
			return fmt.Errorf("master of %s: %w", out[i].Channel, err)
		}
		g := byAddr[node.Options().Addr]
		if g == nil {
			g = &group{node: node}
			byAddr[node.Options().Addr] = g
			groups = append(groups, g)
		}
		g.idx = append(g.idx, i)
	}
	for _, g := range groups {
		chans := make([]string, len(g.idx))
		for j, i := range g.idx {
			chans[j] = out[i].Channel
		}
		m, err := g.node.PubSubShardNumSub(ctx, chans...).Result()
		if err != nil && !isRedisError(err) {
			return fmt.Errorf("PUBSUB SHARDNUMSUB: %w", err)
		}
		for _, i := range g.idx {
			if err == nil {
				n := m[out[i].Channel]
				out[i].ShardSubscribers = &n
			}
		}
	}
	return nil
}

// isRedisError reports an error reply of Redis (an unknown subcommand on an
// old server), as opposed to a network failure.
func isRedisError(err error) bool {
	var re redis.Error
	return errors.As(err, &re)
}
