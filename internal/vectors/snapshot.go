package vectors

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// registrationPrefix starts the key under which a redisson-go client
// publishes who it is (Options.Registration): not part of Redisson's data,
// so not part of a record's state.
const registrationPrefix = "redisson-go:client:"

// taskLatchPrefix starts the run-once latch of a clean-up task (the map
// and set caches'), which §8.2 leaves out of the state: whether it exists
// depends on when the periodic task last ran.
const taskLatchPrefix = "redisson__execute_task_once_latch:"

// Snapshot reads every key of the database and normalizes it into the
// record's "state" object. Its reads take three round trips whatever the
// number of keys (KEYS; TYPE and PTTL of each; their contents), a fourth
// for the consumers of a stream's groups, so that the replay's time per
// step, which adds to every TTL it observes (§4.6), stays small.
func (n *Normalizer) Snapshot(ctx context.Context, rdb *redis.Client) (map[string]any, error) {
	now := time.Now().UnixMilli()
	keys, err := snapshotKeys(ctx, rdb)
	if err != nil {
		return nil, err
	}
	state := map[string]any{}
	if len(keys) == 0 {
		return state, nil
	}
	types := make([]*redis.StatusCmd, len(keys))
	pttls := make([]*redis.DurationCmd, len(keys))
	if _, err := rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, k := range keys {
			types[i] = p.Type(ctx, k)
			pttls[i] = p.PTTL(ctx, k)
		}
		return nil
	}); err != nil {
		return nil, err
	}
	reads := make([]keyRead, len(keys))
	if _, err := rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, k := range keys {
			reads[i] = queueRead(ctx, p, k, types[i].Val())
		}
		return nil
	}); err != nil {
		return nil, err
	}
	groups, err := streamGroups(ctx, rdb, keys, reads)
	if err != nil {
		return nil, err
	}
	for i, k := range keys {
		typ, nk := types[i].Val(), n.Key(k)
		entry := map[string]any{"type": typ}
		if v, ok := n.contents(k, nk, typ, reads[i], groups[i], now); ok {
			entry["value"] = v
		}
		if entry["pttl"], err = n.pttl(k, pttls[i].Val()); err != nil {
			return nil, err
		}
		state[nk] = entry
	}
	return state, nil
}

// snapshotKeys returns the keys a snapshot records, in the order that
// numbers their latches: by name with the latch id masked.
func snapshotKeys(ctx context.Context, rdb *redis.Client) ([]string, error) {
	all, err := rdb.Keys(ctx, "*").Result()
	if err != nil {
		return nil, err
	}
	keys := all[:0]
	for _, k := range all {
		switch {
		case strings.HasPrefix(k, registrationPrefix): // this library's own client record, which Java never writes or reads
		case strings.HasPrefix(k, taskLatchPrefix):
		default:
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		return latchRE.ReplaceAllString(keys[i], "$1:") < latchRE.ReplaceAllString(keys[j], "$1:")
	})
	return keys, nil
}

// contents records the value of key k (normalized nk) of type typ as read
// by rd, and whether the type has one.
func (n *Normalizer) contents(k, nk, typ string, rd keyRead, groups []*streamGroup, now int64) (any, bool) {
	switch typ {
	case "string":
		return n.textValue(rd.str.Val()), true
	case "hash":
		m := map[string]any{}
		for f, v := range rd.hash.Val() {
			m[n.Text(f)] = n.textValue(v)
		}
		return m, true
	case "list":
		l := rd.list.Val()
		out := make([]any, len(l))
		for i, v := range l {
			out[i] = n.textValue(v)
		}
		return out, true
	case "set":
		s := rd.list.Val()
		out := make([]string, len(s))
		for i, v := range s {
			out[i] = n.Text(v)
		}
		sort.Strings(out)
		vals := make([]any, len(out))
		for i, v := range out {
			vals[i] = v
		}
		return vals, true
	case "zset":
		return n.zset(k, nk, rd.zset.Val(), now), true
	case "stream":
		return n.stream(rd, groups), true
	}
	return nil, false
}

// zset records a sorted set's members, in Redis' order, as [member, score]
// pairs.
func (n *Normalizer) zset(k, nk string, z []redis.Z, now int64) []any {
	out := make([]any, len(z))
	for i, m := range z {
		member := m.Member.(string)
		var nm any
		if len(member) == 16 && strings.HasSuffix(k, ":timeout") {
			// A permit id stored as 16 raw bytes (§4.5).
			nm = n.Permit(hex.EncodeToString([]byte(member)))
		} else if len(member) == 21 && member[0] == 16 && grantsRE.MatchString(nk) {
			// A rate-limiter grant: length byte, 16 random bytes,
			// uint32 LE permits (§4.9).
			nm = fmt.Sprintf("<grant n=%d>", binary.LittleEndian.Uint32([]byte(member[17:])))
		} else if n.lcm != nil && strings.HasPrefix(k, lcmLog) {
			if v, ok := n.lcmValue(member); ok {
				out[i] = []any{v, lcmScore(m.Score, now)}
				continue
			}
			nm = n.textValue(member)
		} else {
			nm = n.textValue(member)
		}
		out[i] = []any{nm, n.score(m.Score, now)}
	}
	return out
}

// pttl records key k's PTTL: -1 as it is, an unlock latch's as the fixed
// [0, 20000] (§4.7), others as their bucket.
func (n *Normalizer) pttl(k string, pttl time.Duration) (any, error) {
	switch {
	case pttl < 0:
		return int64(pttl), nil
	case latchRE.MatchString(k):
		if pttl > 20*time.Second {
			return nil, fmt.Errorf("latch %s has PTTL %v > 20 s", k, pttl)
		}
		return []any{int64(0), int64(20000)}, nil
	}
	return n.Bucket(pttl.Milliseconds()), nil
}

// keyRead is the queued read of one key's contents; the field its type
// reads is set.
type keyRead struct {
	str  *redis.StringCmd
	hash *redis.MapStringStringCmd
	list *redis.StringSliceCmd // a list's or a set's members
	zset *redis.ZSliceCmd
	// A stream's entries, XINFO STREAM and XINFO GROUPS.
	entries      *redis.XMessageSliceCmd
	info, groups *redis.Cmd
}

// queueRead queues the read of key k of type typ in p.
func queueRead(ctx context.Context, p redis.Pipeliner, k, typ string) keyRead {
	var rd keyRead
	switch typ {
	case "string":
		rd.str = p.Get(ctx, k)
	case "hash":
		rd.hash = p.HGetAll(ctx, k)
	case "list":
		rd.list = p.LRange(ctx, k, 0, -1)
	case "set":
		rd.list = p.SMembers(ctx, k)
	case "zset":
		rd.zset = p.ZRangeWithScores(ctx, k, 0, -1)
	case "stream":
		rd.entries = p.XRange(ctx, k, "-", "+")
		rd.info = p.Do(ctx, "XINFO", "STREAM", k)
		rd.groups = p.Do(ctx, "XINFO", "GROUPS", k)
	}
	return rd
}

func (n *Normalizer) textValue(v string) any {
	if s, ok := value(v).(string); ok {
		return n.Text(s)
	}
	return value(v)
}

// score records a wall-clock zset score relative to now (§4.6), other
// integral scores as exact integers, and the rest (RScoredSortedSet's 1.5)
// as they are.
func (n *Normalizer) score(s float64, now int64) any {
	if math.Abs(s-float64(now)) < 1e10 {
		rel := int64(s) - now
		k := int64(math.Ceil(float64(rel) / float64(n.Grid)))
		return map[string]any{"rel": []any{n.Grid * (k - 1), n.Grid * k}}
	}
	if s != math.Trunc(s) {
		return s
	}
	return int64(s)
}

// streamGroup is one consumer group of a stream as read: its XINFO GROUPS
// entry and its XINFO CONSUMERS reply.
type streamGroup struct {
	info      map[string]any
	consumers *redis.Cmd
}

// streamGroups reads the consumers of every group of the streams among
// keys, in one round trip, and returns the groups by the stream's index.
func streamGroups(ctx context.Context, rdb *redis.Client, keys []string, reads []keyRead) (map[int][]*streamGroup, error) {
	out := map[int][]*streamGroup{}
	if _, err := rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, rd := range reads {
			if rd.groups == nil {
				continue
			}
			list, _ := rd.groups.Val().([]any)
			for _, g := range list {
				sg := &streamGroup{info: fieldMap(g)}
				sg.consumers = p.Do(ctx, "XINFO", "CONSUMERS", keys[i], fmt.Sprint(sg.info["name"]))
				out[i] = append(out[i], sg)
			}
		}
		return nil
	}); err != nil {
		return nil, err
	}
	return out, nil
}

// stream records a stream as §8.2 lays it out: entries (XRANGE), the
// stream's last-generated-id and entries-added (XINFO STREAM), its groups
// sorted by normalized name with their consumers (XINFO GROUPS/CONSUMERS).
// Ids are normalized in that order, the groups' in the order Redis lists
// them, which numbers new ones (§8.2).
func (n *Normalizer) stream(rd keyRead, groups []*streamGroup) map[string]any {
	msgs := rd.entries.Val()
	entries := make([]any, len(msgs))
	for i, m := range msgs {
		fields := map[string]any{}
		for f, v := range m.Values {
			fields[n.Text(f)] = n.textValue(fmt.Sprint(v))
		}
		entries[i] = []any{n.Text(m.ID), fields}
	}
	si := fieldMap(rd.info.Val())
	out := map[string]any{
		"entries":           entries,
		"last-generated-id": n.Text(fmt.Sprint(si["last-generated-id"])),
		"entries-added":     si["entries-added"],
	}
	recs := make([]map[string]any, 0, len(groups))
	for _, g := range groups {
		clist, _ := g.consumers.Val().([]any)
		consumers := make([]any, 0, len(clist))
		for _, c := range clist {
			cm := fieldMap(c)
			consumers = append(consumers, map[string]any{"name": n.Text(fmt.Sprint(cm["name"])), "pending": cm["pending"]})
		}
		gm := g.info
		recs = append(recs, map[string]any{
			"name":              n.Text(fmt.Sprint(gm["name"])),
			"consumers":         gm["consumers"],
			"pending":           gm["pending"],
			"last-delivered-id": n.Text(fmt.Sprint(gm["last-delivered-id"])),
			"entries-read":      gm["entries-read"],
			"lag":               gm["lag"],
			"consumer_list":     consumers,
		})
	}
	sort.Slice(recs, func(i, j int) bool { return recs[i]["name"].(string) < recs[j]["name"].(string) })
	gl := make([]any, len(recs))
	for i, g := range recs {
		gl[i] = g
	}
	out["groups"] = gl
	return out
}

// fieldMap reads an XINFO reply: a RESP3 map or a RESP2 flat list.
func fieldMap(v any) map[string]any {
	out := map[string]any{}
	switch m := v.(type) {
	case map[any]any:
		for k, val := range m {
			out[fmt.Sprint(k)] = val
		}
	case []any:
		for i := 0; i+1 < len(m); i += 2 {
			out[fmt.Sprint(m[i])] = m[i+1]
		}
	}
	return out
}
