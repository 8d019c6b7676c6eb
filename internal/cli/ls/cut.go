package ls

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson/internal/cli/objinfo"
	"github.com/goredisson/redisson/internal/registry"
	"github.com/goredisson/redisson/keys"
)

// scanned is what the scan found: the keys to read (the first --max-keys,
// then only those that matter), the names that matter found elsewhere
// (waited on, held by a registered client), and how many matching keys
// were left out.
type scanned struct {
	keys    []string
	names   []string // objects to list besides those of keys
	matched int      // keys matching PATTERN
	leftOut int      // of them, not read
	kept    int      // of them, read although past the limit
}

// scanKeys scans every key matching o.Pattern (the server, or every master
// of a cluster). It keeps the first o.MaxKeys keys and, past them, only the
// keys that say an object is held or waited on by their names (a fair
// lock's queue and timeout, a read hold's timeout, a permit-expirable
// semaphore's timeout) and those o.Pins match; the others are counted,
// not kept. When keys were left out, it adds the objects waited on (the
// channels with subscribers) and those the clients' records list as held.
func scanKeys(ctx context.Context, rdb redis.UniversalClient, o Options) (*scanned, error) {
	var mu sync.Mutex
	seen := map[string]bool{}
	sc := &scanned{}
	scan := func(ctx context.Context, node redis.UniversalClient) error {
		var cursor uint64
		for {
			keys, next, err := node.Scan(ctx, cursor, o.Pattern, o.ScanCount).Result()
			if err != nil {
				return fmt.Errorf("SCAN %s: %w", o.Pattern, err)
			}
			mu.Lock()
			for _, k := range keys {
				if seen[k] {
					continue
				}
				sc.matched++
				switch {
				case len(seen) < o.MaxKeys:
				case matters(k) || o.pinned(k):
					sc.kept++
				default:
					sc.leftOut++
					continue
				}
				seen[k] = true
			}
			mu.Unlock()
			if cursor = next; cursor == 0 {
				return nil
			}
		}
	}
	if err := eachMaster(ctx, rdb, scan); err != nil {
		return nil, err
	}
	// A key seen twice (a rehash during SCAN) was counted twice.
	sc.keys = make([]string, 0, len(seen))
	for k := range seen {
		sc.keys = append(sc.keys, k)
	}
	sort.Strings(sc.keys)
	if sc.leftOut > 0 {
		names, _, err := hotNames(ctx, rdb, o)
		if err != nil {
			return nil, err
		}
		for _, n := range names {
			if !seen[n] {
				sc.names = append(sc.names, n)
			}
		}
	}
	return sc, nil
}

// eachMaster runs scan on the server, or on every master of a cluster.
func eachMaster(ctx context.Context, rdb redis.UniversalClient, scan func(context.Context, redis.UniversalClient) error) error {
	if c, ok := rdb.(*redis.ClusterClient); ok {
		return c.ForEachMaster(ctx, func(ctx context.Context, node *redis.Client) error { return scan(ctx, node) })
	}
	return scan(ctx, rdb)
}

// matters reports a key whose name says its object is held or waited on:
// a fair lock's queue or timeout zset (they exist only while someone
// waits), a read hold's timeout, a permit-expirable semaphore's timeout
// zset (it exists while a permit is acquired).
func matters(k string) bool {
	return strings.HasPrefix(k, "redisson_lock_queue:") || strings.HasPrefix(k, "redisson_lock_timeout:") ||
		strings.Contains(k, ":rwlock_timeout:") || strings.HasSuffix(k, ":timeout")
}

// pinned reports a key a --pin names or matches.
func (o Options) pinned(k string) bool {
	for _, p := range o.Pins {
		if k == p || Glob(p, k) {
			return true
		}
	}
	return false
}

// hotNames are the names of objects waited on (from the channels with
// subscribers) and held by registered clients (from their records), that
// match PATTERN, and the records read.
func hotNames(ctx context.Context, rdb redis.UniversalClient, o Options) ([]string, objinfo.Clients, error) {
	var mu sync.Mutex
	var chans []string
	list := func(ctx context.Context, node redis.UniversalClient) error {
		cs, err := node.PubSubChannels(ctx, "redisson*").Result()
		if err != nil {
			return fmt.Errorf("PUBSUB CHANNELS: %w", err)
		}
		shard, err := node.PubSubShardChannels(ctx, "redisson*").Result()
		if err != nil && !isRedisErr(err) {
			return fmt.Errorf("PUBSUB SHARDCHANNELS: %w", err)
		}
		mu.Lock()
		defer mu.Unlock()
		chans = append(append(chans, cs...), shard...)
		return nil
	}
	if err := eachMaster(ctx, rdb, list); err != nil {
		return nil, nil, err
	}
	var names []string
	for _, c := range chans {
		if n, ok := ChannelName(c); ok {
			names = append(names, n)
		}
	}
	recs := objinfo.Clients{}
	if err := recs.ReadAllClients(ctx, rdb); err != nil {
		return nil, nil, fmt.Errorf("client records: %w", err)
	}
	names = append(names, recs.HeldKeys()...)
	out := names[:0]
	for _, n := range objinfo.Dedupe(names) {
		if Glob(o.Pattern, n) && !registry.IsKey(n) {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out, recs, nil
}

// reFairWaiterChan is a fair-lock waiter's own channel's tail: the
// waiter's owner field.
var reFairWaiterChan = regexp.MustCompile(`:[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}:-?[0-9]+$`)

// ChannelName returns the name of the object whose waiters listen on
// channel: a lock's, a read-write lock's, a fair-lock waiter's, a
// semaphore's or a latch's channel.
func ChannelName(channel string) (string, bool) {
	if rest, ok := strings.CutPrefix(channel, "redisson_countdownlatch__channel__{"); ok {
		return strings.CutSuffix(rest, "}")
	}
	for _, p := range []string{"redisson_lock__channel:", "redisson_rwlock:", "redisson_sc:"} {
		if rest, ok := strings.CutPrefix(channel, p); ok {
			if p == "redisson_lock__channel:" {
				if loc := reFairWaiterChan.FindStringIndex(rest); loc != nil && strings.HasSuffix(rest[:loc[0]], "}") {
					rest = rest[:loc[0]]
				}
			}
			return keys.Untag(rest)
		}
	}
	return "", false
}
