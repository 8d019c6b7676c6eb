// Package vectors replays the golden records of genuine Java Redisson
// (testdata/, a copy of shared/interop-vectors) against this library: it
// loads scenarios, captures published messages with a raw PSUBSCRIBE *
// connection and a marker, snapshots every key, and normalizes what it saw
// with the rules of testdata/README.md §3–§4, so an object's test can compare
// its own records with Java's as JSON values. Replay drives a scenario's
// steps; a scenario whose wall-clock buckets the replay's own slowness may
// have shifted is replayed from scratch (overhead.go).
package vectors

import (
	"bytes"
	"context"
	"embed"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/redis/go-redis/v9"
)

//go:embed testdata/*.json testdata/redisson-4.7.0/*.json
var files embed.FS

// File is one object's vector file.
type File struct {
	Format          string     `json:"format"`
	Object          string     `json:"object"`
	RedissonVersion string     `json:"redisson_version"`
	Scenarios       []Scenario `json:"scenarios"`
}

// Scenario is one recorded run.
type Scenario struct {
	Name        string            `json:"name"`
	Description string            `json:"description"`
	Config      map[string]any    `json:"config"`
	TTLGridMS   int64             `json:"ttl_grid_ms"`
	Actors      map[string]string `json:"actors"`
	Steps       []Step            `json:"steps"`
}

// WatchdogTimeout returns the scenario's lockWatchdogTimeout.
func (s Scenario) WatchdogTimeout() time.Duration {
	if v, ok := s.Config["lockWatchdogTimeout_ms"].(float64); ok {
		return time.Duration(v) * time.Millisecond
	}
	return 30 * time.Second
}

// Step is one recorded step; Raw keeps every field for comparison.
type Step struct {
	Step   int            `json:"step"`
	Kind   string         `json:"kind"`
	Actor  string         `json:"actor"`
	Client string         `json:"client"`
	Object string         `json:"object"`
	Op     string         `json:"op"`
	Args   map[string]any `json:"args"`
	Java   string         `json:"java"`
	MS     int64          `json:"ms"`
	Raw    map[string]any `json:"-"`
	// Queries are a query step's operations in the order of the keys of
	// its recorded result, the order they ran in.
	Queries []string `json:"-"`
}

// resultOrder returns the keys of a step's "result" object in file order.
func resultOrder(step json.RawMessage) []string {
	var fields struct {
		Result json.RawMessage `json:"result"`
	}
	if json.Unmarshal(step, &fields) != nil || len(fields.Result) == 0 || fields.Result[0] != '{' {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(fields.Result))
	_, _ = dec.Token() // {
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return keys
		}
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return keys
		}
	}
	return keys
}

// Arg returns a numeric argument as a duration in milliseconds.
func (s Step) Arg(name string) (time.Duration, bool) {
	v, ok := s.Args[name].(float64)
	if !ok {
		return 0, false
	}
	return time.Duration(v) * time.Millisecond, true
}

// Int returns a numeric argument as a count (permits, a latch count).
func (s Step) Int(name string) (int64, bool) {
	v, ok := s.Args[name].(float64)
	if !ok {
		return 0, false
	}
	return int64(v), true
}

// Load reads one vector file by its base name, e.g. "rlock.json", or
// "redisson-4.7.0/topics.json" for a 4.7.0 record.
func Load(name string) (*File, error) {
	data, err := files.ReadFile("testdata/" + name)
	if err != nil {
		return nil, err
	}
	var f File
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	var raw struct {
		Scenarios []struct {
			Steps []map[string]any `json:"steps"`
		} `json:"scenarios"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, err
	}
	var order struct {
		Scenarios []struct {
			Steps []json.RawMessage `json:"steps"`
		} `json:"scenarios"`
	}
	if err := json.Unmarshal(data, &order); err != nil {
		return nil, err
	}
	for i := range f.Scenarios {
		for j := range f.Scenarios[i].Steps {
			f.Scenarios[i].Steps[j].Raw = raw.Scenarios[i].Steps[j]
			f.Scenarios[i].Steps[j].Queries = resultOrder(order.Scenarios[i].Steps[j])
		}
	}
	return &f, nil
}

// Normalizer turns observed ids, owners, latches and TTLs into the
// placeholders of the records. One Normalizer serves one scenario.
type Normalizer struct {
	Grid     int64             // ttl_grid_ms
	Clients  map[string]string // client id → "C1"
	Owners   map[string]string // "<Cn>:<digits>" → "<Cn>:<Tk>"
	requests map[string]string // 32-hex request id → "R1"
	permits  map[string]string // 32-hex permit id → "P1"
	// streamIDs numbers reliable-topic subscriber ids (other 32-hex
	// tokens) as <Sn> and stream entry ids as <Xn> (§8.2), when set.
	streamIDs   bool
	subscribers map[string]string // 32-hex subscriber id → "S1"
	entries     map[string]string // stream entry id → "X1"
}

// NumberStreamIDs turns on the reliable-topic rules of §8.2: other 32-hex
// tokens become <Sn>, stream entry ids <Xn>, numbered as first seen.
func (n *Normalizer) NumberStreamIDs() {
	n.streamIDs = true
	n.subscribers = map[string]string{}
	n.entries = map[string]string{}
}

var streamIDRE = regexp.MustCompile(`\b[0-9]{13}-[0-9]+\b`)

// NewNormalizer returns a normalizer for a scenario.
func NewNormalizer(grid int64) *Normalizer {
	return &Normalizer{
		Grid:     grid,
		Clients:  map[string]string{},
		Owners:   map[string]string{},
		requests: map[string]string{},
		permits:  map[string]string{},
	}
}

// AddClient binds a client id to its placeholder name ("C1").
func (n *Normalizer) AddClient(id, name string) { n.Clients[id] = name }

// AddOwner binds an owner id of a client to an actor ("T1").
func (n *Normalizer) AddOwner(clientID string, owner int64, actor string) {
	c := n.Clients[clientID]
	n.Owners["<"+c+">:"+strconv.FormatInt(owner, 10)] = "<" + c + ">:<" + actor + ">"
}

var (
	uuidRE  = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	ownerRE = regexp.MustCompile(`<C[0-9]+>:-?[0-9]+`)
	latchRE = regexp.MustCompile(`^(redisson_unlock_latch:.*):([0-9a-f]{32})$`)
	hex32RE = regexp.MustCompile(`[0-9a-f]{32}`)
	// grantsRE matches the normalized name of a rate limiter's grants zset.
	grantsRE = regexp.MustCompile(`:permits(:<C[0-9]+>)?$`)
)

// Text normalizes a string: client ids, owners, known request and permit ids.
func (n *Normalizer) Text(s string) string {
	s = uuidRE.ReplaceAllStringFunc(s, func(u string) string {
		if c, ok := n.Clients[u]; ok {
			return "<" + c + ">"
		}
		return u
	})
	s = ownerRE.ReplaceAllStringFunc(s, func(o string) string {
		if t, ok := n.Owners[o]; ok {
			return t
		}
		return o
	})
	s = hex32RE.ReplaceAllStringFunc(s, func(h string) string {
		if r, ok := n.requests[h]; ok {
			return "<" + r + ">"
		}
		if p, ok := n.permits[h]; ok {
			return "<" + p + ">"
		}
		if n.streamIDs {
			id, ok := n.subscribers[h]
			if !ok {
				id = "S" + strconv.Itoa(len(n.subscribers)+1)
				n.subscribers[h] = id
			}
			return "<" + id + ">"
		}
		return h
	})
	if n.streamIDs {
		s = streamIDRE.ReplaceAllStringFunc(s, func(x string) string {
			id, ok := n.entries[x]
			if !ok {
				id = "X" + strconv.Itoa(len(n.entries)+1)
				n.entries[x] = id
			}
			return "<" + id + ">"
		})
	}
	return s
}

// Key normalizes a key name, numbering new unlock-latch request ids.
func (n *Normalizer) Key(k string) string {
	if m := latchRE.FindStringSubmatch(k); m != nil {
		id, ok := n.requests[m[2]]
		if !ok {
			id = "R" + strconv.Itoa(len(n.requests)+1)
			n.requests[m[2]] = id
		}
		return n.Text(m[1]) + ":<" + id + ">"
	}
	return n.Text(k)
}

// Permit numbers a permit id (32 hex) as <Pn>.
func (n *Normalizer) Permit(id string) string {
	p, ok := n.permits[id]
	if !ok {
		p = "P" + strconv.Itoa(len(n.permits)+1)
		n.permits[id] = p
	}
	return "<" + p + ">"
}

// Bucket records a non-negative duration in ms as [G·(k−1), G·k].
func (n *Normalizer) Bucket(ms int64) any {
	if ms < 0 {
		return ms
	}
	k := (ms + n.Grid - 1) / n.Grid
	return []any{n.Grid * (k - 1), n.Grid * k}
}

// Bucket2 records a signed difference in ms as [G·(k−1), G·k] with
// k = ⌈ms/G⌉ (the "rel" rule of §4.6).
func (n *Normalizer) Bucket2(ms int64) []any {
	k := int64(math.Ceil(float64(ms) / float64(n.Grid)))
	return []any{n.Grid * (k - 1), n.Grid * k}
}

// TTL records a duration as Bucket does, keeping -1 and -2 as numbers.
func (n *Normalizer) TTL(d time.Duration) any {
	if d < 0 {
		return int64(d)
	}
	return n.Bucket(d.Milliseconds())
}

// value records stored bytes as a string, or as hex when they are not plain
// text (§4.1).
func value(b string) any {
	if utf8.ValidString(b) && !strings.ContainsFunc(b, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return b
	}
	return map[string]any{"hex": hex.EncodeToString([]byte(b))}
}

// registrationPrefix starts the key under which a redisson-go client
// publishes who it is (Options.Registration): not part of Redisson's data,
// so not part of a record's state.
const registrationPrefix = "redisson-go:client:"

// Snapshot reads every key of the database and normalizes it into the
// record's "state" object. Its reads take three round trips whatever the
// number of keys (KEYS; TYPE and PTTL of each; their contents), a fourth
// for the consumers of a stream's groups, so that the replay's time per
// step, which adds to every TTL it observes (§4.6), stays small.
func (n *Normalizer) Snapshot(ctx context.Context, rdb *redis.Client) (map[string]any, error) {
	now := time.Now().UnixMilli()
	all, err := rdb.Keys(ctx, "*").Result()
	if err != nil {
		return nil, err
	}
	keys := all[:0]
	for _, k := range all {
		if !strings.HasPrefix(k, registrationPrefix) {
			keys = append(keys, k) // not this library's own client record, which Java never writes or reads
		}
	}
	// Latches are numbered in the order of their names with the id masked.
	sort.Slice(keys, func(i, j int) bool {
		return latchRE.ReplaceAllString(keys[i], "$1:") < latchRE.ReplaceAllString(keys[j], "$1:")
	})
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
		typ, pttl := types[i].Val(), pttls[i].Val()
		nk := n.Key(k)
		entry := map[string]any{"type": typ}
		rd := reads[i]
		switch typ {
		case "string":
			entry["value"] = n.textValue(rd.str.Val())
		case "hash":
			m := map[string]any{}
			for f, v := range rd.hash.Val() {
				m[n.Text(f)] = n.textValue(v)
			}
			entry["value"] = m
		case "list":
			l := rd.list.Val()
			out := make([]any, len(l))
			for i, v := range l {
				out[i] = n.textValue(v)
			}
			entry["value"] = out
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
			entry["value"] = vals
		case "zset":
			z := rd.zset.Val()
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
				} else {
					nm = n.textValue(member)
				}
				out[i] = []any{nm, n.score(m.Score, now)}
			}
			entry["value"] = out
		case "stream":
			entry["value"] = n.stream(rd, groups[i])
		}
		switch {
		case pttl < 0:
			entry["pttl"] = int64(pttl)
		case latchRE.MatchString(k):
			if pttl > 20*time.Second {
				return nil, fmt.Errorf("latch %s has PTTL %v > 20 s", k, pttl)
			}
			entry["pttl"] = []any{int64(0), int64(20000)}
		default:
			entry["pttl"] = n.Bucket(pttl.Milliseconds())
		}
		state[nk] = entry
	}
	return state, nil
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

const markerChannel = "__vectorreplay_marker__"

// Messages captures everything published, over a raw PSUBSCRIBE * connection.
type Messages struct {
	rdb    *redis.Client
	ps     *redis.PubSub
	marker string
	seq    int
}

// NewMessages subscribes to every channel and waits for the confirmation.
func NewMessages(ctx context.Context, rdb *redis.Client) (*Messages, error) {
	ps := rdb.PSubscribe(ctx, "*")
	if _, err := ps.Receive(ctx); err != nil {
		_ = ps.Close()
		return nil, err
	}
	return &Messages{rdb: rdb, ps: ps, marker: markerChannel}, nil
}

// Close ends the capture.
func (m *Messages) Close() error { return m.ps.Close() }

// Collect publishes a marker and returns, in arrival order, every message
// that arrived before it, as [channel, payload] pairs, normalized.
func (m *Messages) Collect(ctx context.Context, n *Normalizer) ([]any, error) {
	var mark string
	if _, err := m.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		mark = m.mark(ctx, p)
		return nil
	}); err != nil {
		return nil, err
	}
	return m.wait(ctx, n, mark)
}

// mark queues the publication of the next marker in p and returns it.
func (m *Messages) mark(ctx context.Context, p redis.Pipeliner) string {
	m.seq++
	mark := strconv.Itoa(m.seq)
	p.Publish(ctx, m.marker, mark)
	return mark
}

// wait returns, in arrival order, every message that arrived before mark,
// normalized.
func (m *Messages) wait(ctx context.Context, n *Normalizer, mark string) ([]any, error) {
	out := []any{}
	for {
		msg, err := m.ps.ReceiveTimeout(ctx, 5*time.Second)
		if err != nil {
			return nil, fmt.Errorf("waiting for marker %s: %w", mark, err)
		}
		pm, ok := msg.(*redis.Message)
		if !ok {
			continue
		}
		if pm.Channel == m.marker {
			if pm.Payload == mark {
				return out, nil
			}
			continue
		}
		out = append(out, []any{n.Text(pm.Channel), n.Text(pm.Payload)})
	}
}

// Channels returns the sorted, normalized output of PUBSUB CHANNELS without
// the marker channel.
func Channels(ctx context.Context, rdb *redis.Client, n *Normalizer) ([]any, error) {
	chs, err := rdb.PubSubChannels(ctx, "*").Result()
	if err != nil {
		return nil, err
	}
	return channels(chs, n), nil
}

func channels(chs []string, n *Normalizer) []any {
	var out []string
	for _, c := range chs {
		if c == markerChannel {
			continue
		}
		out = append(out, n.Text(c))
	}
	sort.Strings(out)
	res := make([]any, len(out))
	for i, c := range out {
		res[i] = c
	}
	return res
}

// JSON round-trips v through encoding/json so it compares with a decoded
// record (numbers become float64).
func JSON(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		panic(err)
	}
	return out
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
