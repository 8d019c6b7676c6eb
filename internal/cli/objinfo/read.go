package objinfo

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson/internal/cli/classify"
)

// ChannelWaiters is the subscribers of ch, plain and shard, among cs.
func ChannelWaiters(cs []ChannelSub, ch string) int64 {
	for _, c := range cs {
		if c.Channel == ch {
			n := c.Subscribers
			if c.ShardSubscribers != nil {
				n += *c.ShardSubscribers
			}
			return n
		}
	}
	return 0
}

// ReadKey reads one key's TYPE and, when it exists, its PTTL.
func ReadKey(ctx context.Context, rdb redis.UniversalClient, key string) (KeyInfo, error) {
	typ, err := rdb.Type(ctx, key).Result()
	if err != nil {
		return KeyInfo{}, fmt.Errorf("TYPE %s: %w", key, err)
	}
	ki := KeyInfo{Key: key, Type: typ, TTLms: -2}
	if typ == "none" {
		return ki, nil
	}
	d, err := rdb.PTTL(ctx, key).Result()
	if err != nil {
		return KeyInfo{}, fmt.Errorf("PTTL %s: %w", key, err)
	}
	ki.TTLms = TTLMillis(d)
	return ki, nil
}

// TTLMillis turns go-redis' PTTL result into Redis' own numbers: -1 for no
// expiry, -2 for no key.
func TTLMillis(d time.Duration) int64 {
	if d < 0 {
		return int64(d) // go-redis returns -1 and -2 (nanoseconds) as they are
	}
	return d.Milliseconds()
}

// HolderList lists a lock hash's holders, by field, without the read
// holds' TTLs.
func HolderList(fields map[string]string, rw bool) []Holder {
	out := []Holder{}
	keys := make([]string, 0, len(fields))
	for f := range fields {
		if rw && f == "mode" {
			continue
		}
		keys = append(keys, f)
	}
	sort.Strings(keys)
	for _, f := range keys {
		h := Holder{Field: f, Mode: "exclusive"}
		h.Holds, _ = strconv.ParseInt(fields[f], 10, 64)
		var write bool
		h.ClientID, h.OwnerID, write = classify.ParseOwner(f)
		if rw {
			h.Mode = "read"
			if write {
				h.Mode = "write"
			}
		}
		out = append(out, h)
	}
	return out
}

// Permits lists the acquired permits of a permit-expirable semaphore's
// timeout zset key, at most MaxListed.
func Permits(ctx context.Context, rdb redis.UniversalClient, key string) ([]Permit, error) {
	zs, err := rdb.ZRangeWithScores(ctx, key, 0, MaxListed-1).Result()
	if err != nil {
		return nil, fmt.Errorf("ZRANGE %s: %w", key, err)
	}
	now := time.Now().UnixMilli()
	out := []Permit{}
	for _, z := range zs {
		m, _ := z.Member.(string)
		p := Permit{ID: hex.EncodeToString([]byte(m))}
		if z.Score < pesNoExpiry && !math.IsInf(z.Score, 0) {
			ms := int64(z.Score)
			in := ms - now
			p.ExpiresMs, p.ExpiresInMs, p.Expired = &ms, &in, ms <= now
		}
		out = append(out, p)
	}
	return out, nil
}

// GroupValues lists the values held in a group's hash, soonest expiry
// first (field id order among equals).
func GroupValues(fields map[string]string, now int64) []GroupValue {
	out := []GroupValue{}
	for f, v := range fields {
		exp, count, ok := classify.IsGroupValue(fields, f, v)
		if !ok {
			continue
		}
		g := GroupValue{Field: f}
		g.ClientID, g.OwnerID, _ = classify.ParseOwner(v)
		g.Holds, _ = strconv.ParseInt(count, 10, 64)
		if ms, err := strconv.ParseInt(exp, 10, 64); err == nil {
			in := ms - now
			g.ExpiresMs, g.ExpiresInMs, g.Expired = &ms, &in, ms <= now
		}
		out = append(out, g)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i].ExpiresMs, out[j].ExpiresMs
		if a != nil && b != nil && *a != *b {
			return *a < *b
		}
		return out[i].Field < out[j].Field
	})
	return out
}

// ExecPipe runs a pipeline; a command's nil or error reply (WRONGTYPE of a
// key that changed type since TYPE) is left to its reader, a failure of
// the connection is returned.
func ExecPipe(ctx context.Context, pipe redis.Pipeliner) error {
	cmds, err := pipe.Exec(ctx)
	if err == nil {
		return nil
	}
	for _, c := range cmds {
		if e := c.Err(); e != nil && !errors.Is(e, redis.Nil) && !isRedisError(e) {
			return fmt.Errorf("%s: %w", strings.ToUpper(c.Name()), e)
		}
	}
	return nil
}

// Dedupe returns s without repeats, first occurrences in order.
func Dedupe(s []string) []string {
	seen := make(map[string]bool, len(s))
	out := s[:0:0]
	for _, v := range s {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}

// FmtMillis prints milliseconds as time.Duration does.
func FmtMillis(ms int64) string {
	return (time.Duration(ms) * time.Millisecond).String()
}
