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
	// lcm numbers local cached map ids (§10), when set.
	lcm *lcmState
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
// normalized; a payload that is not text is recorded as hex (§4.1), as the
// records write the clean-ups' packed members.
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
		out = append(out, []any{n.Text(pm.Channel), n.Payload(pm.Channel, pm.Payload)})
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
