package inspect

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson/codec"
	"github.com/goredisson/redisson/internal/cli/classify"
	"github.com/goredisson/redisson/internal/cli/cliflag"
	"github.com/goredisson/redisson/internal/cli/conn"
	"github.com/goredisson/redisson/internal/cli/run"
	"github.com/goredisson/redisson/rwlock"
)

const inspectDescription = `
Shows what Redis holds under NAME and the keys and channels Redisson derives
from it: the kind of object, its TTL, the holders of a lock (client id, owner
id, hold count, and from the holder's registration record its host, pid,
program and how long it has held; "unknown client (Java, or registration
off)" without one), the fair-lock queue, semaphore permits (with each acquired
permit's expiry for a permit-expirable semaphore) or the latch count, a rate
limiter's config and the state of its window(s), the values a group
multi-lock holds (by field id, with owner and expiry), a bucket's value decoded
with the codec its bytes suggest, and how many
connections are subscribed to the object's pub/sub channel(s), which is how
Redisson clients (Java and Go) wait.

Kinds, from the key's Redis type:
  hash with a "mode" field                          read-write lock
  hash with "rate", "interval" and "type" fields    rate limiter
  hash whose fields F hold an owner U with a field
        F:U:expire_time                             group multi-lock (getMultiLock(group,
                                                    values)): the values held, by field id
  hash, with redisson_lock_queue:{NAME} or
        redisson_lock_timeout:{NAME}                fair lock
  other hash                                        lock
  string integer, with the zset {NAME}:timeout      permit-expirable semaphore
  other string integer                              "semaphore" or "count-down latch" when
                                                    only one of redisson_sc:{NAME} and
                                                    redisson_countdownlatch__channel__{NAME}
                                                    has subscribers; "semaphore or latch"
                                                    when both have; "atomiclong" when
                                                    neither has, which only says "an
                                                    integer string": an atomic long, or a
                                                    semaphore or latch nobody waits on, or
                                                    a bucket holding a number
                                                    (alternatives lists them)
  other string                                      bucket (RBucket), with the codec its
                                                    bytes suggest: json (starts with
                                                    {"@class" or ["<class>"), msgpack
                                                    (MessagePack with "@class" or
                                                    [class, value]), string (UTF-8 text),
                                                    or bytes (ByteArrayCodec, or Kryo5Codec,
                                                    which Go cannot read)
  no key                                            none
  anything else                                     unknown (<redis type>)

--json prints one JSON object with these fields (always present):
  name           NAME
  kind           the kind above
  type           Redis type of NAME: hash, string, none, ...
  ttl_ms         PTTL of NAME in ms: -1 no expiry, -2 no key
  mode           read-write lock: "read" or "write"; else null
  holders        [] of {field, client_id, owner_id, holds, mode, read_ttls_ms, client,
                 held_for_ms}:
                 field "<client uuid>:<owner>[:write]"; client_id and owner_id parsed
                 from it (null when it does not parse); holds = hold count; mode
                 "exclusive" (lock, fair lock), "read" or "write" (read-write lock);
                 read_ttls_ms = PTTL of each read hold's timeout key, else null;
                 client = the holder's client from its registration record
                 (redisson-go:client:<client id>): {host, pid, program, started_ms,
                 library, go}, null for an unknown client (Java, or registration
                 off); held_for_ms = how long the hold has lasted (by the holder's
                 clock and the record's TTL), null when unknown
  queue          fair-lock waiters, head first: [] of {field, client_id, owner_id,
                 timeout_ms, stale, stale_in_ms, client}; timeout_ms = absolute time (ms since
                 the epoch, the waiter's clock; the ZSCORE in redisson_lock_timeout:{NAME})
                 after which the waiter counts as gone; stale_in_ms = timeout_ms minus
                 now (negative: stale for that long); both null when not in the zset;
                 client = the waiter's client, as for holders
  value          semaphore permits / latch count / atomic long (string integer);
                 else null
  permits        permit-expirable semaphore: acquired permits, soonest expiry first,
                 [] of {id, expires_ms, expires_in_ms, expired}: id = hex of the raw
                 permit id; expires_ms = absolute expiry (ms since the epoch, the
                 acquiring client's clock; the ZSCORE in {NAME}:timeout), null = no
                 lease; expires_in_ms = expires_ms minus now (negative: expired that
                 long ago), null = no lease; expired = the lease has passed (the
                 permit returns to "value" when the next script runs)
  rate_limiter   rate limiter: {rate, interval_ms, type, keep_alive_ms, windows};
                 type "OVERALL" or "PER_CLIENT"; keep_alive_ms 0 = none; windows =
                 the shared window (OVERALL) or each client's (PER_CLIENT, found by
                 SCAN) as [] of {client_id, value_key, permits_key, value, available,
                 used, grants, refill_in_ms, value_ttl_ms}: client_id null for the
                 shared window; value = the stored permits left ({NAME}:value[:CID]),
                 null before the first acquire; available = what availablePermits
                 returns now (value plus the permits of grants older than the
                 interval; the full rate before the first acquire); used = permits of
                 the grants still in the window ({NAME}:permits[:CID]), grants = their
                 number; refill_in_ms = when the oldest of them leaves the window, null
                 when none; value_ttl_ms = PTTL of the value key. Else null
  fencing_token  last token of a fenced lock (redisson_lock_token:{NAME}); else null
  group_values   group multi-lock (getMultiLock(group, values)): the values held, []
                 of {field, client_id, owner_id, holds, expires_ms, expires_in_ms,
                 expired}: field = the value's field id (Base64 of its HighwayHash;
                 the value itself cannot be read back); client_id and owner_id from
                 the owner stored under it; holds = its lock_count; expires_ms = its
                 expire_time (ms since the epoch, the holder's clock), expires_in_ms =
                 that minus now, expired = passed (another owner may take it); else []
  channels       [] of {channel, subscribers, shard_subscribers}: PUBSUB NUMSUB and
                 PUBSUB SHARDNUMSUB (null where unsupported, Redis < 7) of each
                 channel of the kind (all candidate channels when the kind is none
                 or unknown); in a cluster NUMSUB is summed over all nodes and
                 SHARDNUMSUB asked of the master owning the channel's slot
  waiters        sum of the subscribers and shard_subscribers of those channels:
                 connections subscribed, one per waiting client (a Redisson client
                 shares one subscription among all its waiting threads)
  keys           [] of {key, type, ttl_ms}: NAME and each derived key that exists
  alternatives   [] of the other kinds the same state fits: for "atomiclong",
                 "semaphore", "count-down latch" and "bucket"; else []
  codec          bucket: the codec its bytes suggest, a --codec of "redisson get":
                 "json", "msgpack", "string" or "bytes"; else null
  decoded        bucket: the value decoded with that codec, as "redisson get
                 --codec <codec>" prints it (bytes: base64); else null
  size           bucket: the value's length in bytes; else null`

const inspectExamples = `  redisson inspect orders:42
  redisson inspect --watch orders:42                    # redraw every second, changes marked *
  redisson inspect --json orders:42 | jq .holders
  redisson inspect --redis redis://10.0.0.5:6379/2 my-semaphore
  redisson inspect --cluster --redis redis://10.0.0.1:7000 --json jobs`

// Report is the result of inspect; its JSON form is documented above.
type Report struct {
	Name         string       `json:"name"`
	Kind         string       `json:"kind"`
	Type         string       `json:"type"`
	TTLms        int64        `json:"ttl_ms"`
	Mode         *string      `json:"mode"`
	Holders      []Holder     `json:"holders"`
	Queue        []Queued     `json:"queue"`
	Value        *int64       `json:"value"`
	Permits      []Permit     `json:"permits"`
	RateLimiter  *RateLimiter `json:"rate_limiter"`
	FencingToken *int64       `json:"fencing_token"`
	GroupValues  []GroupValue `json:"group_values"`
	Channels     []ChannelSub `json:"channels"`
	Waiters      int64        `json:"waiters"`
	Keys         []KeyInfo    `json:"keys"`
	Alternatives []string     `json:"alternatives"`
	Codec        *string      `json:"codec"`
	Decoded      any          `json:"decoded"`
	Size         *int64       `json:"size"`

	raw       []byte // bucket: the stored bytes
	decodeErr error  // bucket: why the guessed codec could not decode them
}

// Holder is one hash field of a lock.
type Holder struct {
	Field      string  `json:"field"`
	ClientID   *string `json:"client_id"`
	OwnerID    *int64  `json:"owner_id"`
	Holds      int64   `json:"holds"`
	Mode       string  `json:"mode"`
	ReadTTLsms []int64 `json:"read_ttls_ms"`
	// Client is the holder's client from its registration record; nil
	// for an unknown client (Java, or registration off).
	Client *ClientInfo `json:"client"`
	// HeldForMs is how long the hold has lasted, when the record lists it.
	HeldForMs *int64 `json:"held_for_ms"`
}

// GroupValue is one value held in a group multi-lock's hash.
type GroupValue struct {
	Field       string  `json:"field"`
	ClientID    *string `json:"client_id"`
	OwnerID     *int64  `json:"owner_id"`
	Holds       int64   `json:"holds"`
	ExpiresMs   *int64  `json:"expires_ms"`
	ExpiresInMs *int64  `json:"expires_in_ms"`
	Expired     bool    `json:"expired"`
}

// Queued is one waiter of a fair lock.
type Queued struct {
	Field     string  `json:"field"`
	ClientID  *string `json:"client_id"`
	OwnerID   *int64  `json:"owner_id"`
	TimeoutMs *int64  `json:"timeout_ms"`
	Stale     bool    `json:"stale"`
	StaleInMs *int64  `json:"stale_in_ms"`
	// Client is the waiter's client from its registration record.
	Client *ClientInfo `json:"client"`
}

// Permit is one acquired permit of a permit-expirable semaphore.
type Permit struct {
	ID          string `json:"id"`
	ExpiresMs   *int64 `json:"expires_ms"`
	ExpiresInMs *int64 `json:"expires_in_ms"`
	Expired     bool   `json:"expired"`
}

// ChannelSub is the subscriber count of one channel.
type ChannelSub struct {
	Channel          string `json:"channel"`
	Subscribers      int64  `json:"subscribers"`
	ShardSubscribers *int64 `json:"shard_subscribers"`
}

// KeyInfo is one existing key.
type KeyInfo struct {
	Key   string `json:"key"`
	Type  string `json:"type"`
	TTLms int64  `json:"ttl_ms"`
}

// pesNoExpiry is the score of a permit without lease (Redisson's
// 922337203685477).
const pesNoExpiry = 922337203685477

// maxListed bounds the queue, permits and read timeout keys read.
const maxListed = 1000

func Command(args []string) int {
	fs := cliflag.NewFlagSet("inspect", "redisson inspect [--json] [--watch [--interval D]] [connection flags] NAME", inspectDescription, inspectExamples)
	var cf conn.Flags
	cf.Register(fs)
	asJSON := fs.Bool("json", false, "print one JSON object (fields above)")
	watch := fs.Bool("watch", false, "redraw every --interval, marking the lines that changed with * (durations are not compared)")
	interval := fs.Duration("interval", time.Second, "--watch: time between drawings")
	pos, code, done := cliflag.ParseFlags(fs, args, true)
	if done {
		return code
	}
	name, code := cliflag.OneName(fs, pos)
	if name == "" {
		return code
	}
	if code, ok := checkInterval(fs, *watch, *interval); !ok {
		return code
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*cf.Timeout)
	defer cancel()
	cn, code := conn.ConnectOrExit(ctx, fs, &cf, nil)
	if cn == nil {
		return code
	}
	defer cn.Close()
	render := func(ctx context.Context, w io.Writer) error {
		rep, err := Inspect(ctx, cn.RDB, name)
		if err != nil {
			return err
		}
		if *asJSON {
			enc := json.NewEncoder(w)
			enc.SetIndent("", "  ")
			return enc.Encode(rep)
		}
		printReport(w, rep)
		return nil
	}
	if *watch {
		return watchLoop(fs.Name(), "redisson inspect "+name, *interval, 4*cf.Timeout, render)
	}
	if err := render(ctx, os.Stdout); err != nil {
		return cliflag.Errorf(fs.Name(), "%v", err)
	}
	return cliflag.ExitOK
}

// Inspect reads everything about name.
func Inspect(ctx context.Context, rdb redis.UniversalClient, name string) (*Report, error) {
	d := classify.Derive(name)
	rep := &Report{Name: name, Holders: []Holder{}, Queue: []Queued{}, Permits: []Permit{}, Channels: []ChannelSub{}, Keys: []KeyInfo{},
		Alternatives: []string{}, GroupValues: []GroupValue{}}
	head, err := keyInfo(ctx, rdb, name)
	if err != nil {
		return nil, err
	}
	rep.Type, rep.TTLms = head.Type, head.TTLms
	if head.Type != "none" {
		rep.Keys = append(rep.Keys, head)
	}
	extra := map[string]KeyInfo{}
	for _, k := range []string{d.Queue, d.Timeout, d.PESTimeout, d.Token} {
		ki, err := keyInfo(ctx, rdb, k)
		if err != nil {
			return nil, err
		}
		if ki.Type != "none" {
			extra[k] = ki
			rep.Keys = append(rep.Keys, ki)
		}
	}
	_, hasQueue := extra[d.Queue]
	_, hasTimeout := extra[d.Timeout]
	facts := classify.Facts{Type: head.Type, FairKeys: hasQueue || hasTimeout, PESTimeout: extra[d.PESTimeout].Type == "zset"}
	channels, err := readKind(ctx, rdb, rep, facts, d)
	if err != nil {
		return nil, err
	}
	if channels == nil {
		channels = classify.Candidates(d)
	}
	if hasQueue {
		if rep.Queue, err = fairQueue(ctx, rdb, d); err != nil {
			return nil, err
		}
		// Fair-lock waiters each listen on their own channel.
		for _, q := range rep.Queue {
			channels = append(channels, d.LockChan+":"+q.Field)
		}
	}
	if err := readCompanions(ctx, rdb, rep, extra, d); err != nil {
		return nil, err
	}
	if err := readWaiters(ctx, rdb, rep, channels, d); err != nil {
		return nil, err
	}
	if err := identify(ctx, rdb, rep); err != nil {
		return nil, err
	}
	return rep, nil
}

// readKind reads the name's own key, classifies it and fills in what its
// kind shows; it returns the channels of the kind's waiters.
func readKind(ctx context.Context, rdb redis.UniversalClient, rep *Report, f classify.Facts, d classify.Names) ([]string, error) {
	name := rep.Name
	switch f.Type {
	case "hash":
		fields, err := rdb.HGetAll(ctx, name).Result()
		if err != nil {
			return nil, fmt.Errorf("HGETALL %s: %w", name, err)
		}
		f.Fields = fields
		rep.Kind, _ = classify.Of(name, f)
		return classify.Channels(rep.Kind, d), readHash(ctx, rdb, rep, fields)
	case "string":
		v, err := rdb.Get(ctx, name).Result()
		if err != nil && !errors.Is(err, redis.Nil) {
			return nil, fmt.Errorf("GET %s: %w", name, err)
		}
		if errors.Is(err, redis.Nil) {
			rep.Kind = classify.None // deleted in between
			return nil, nil
		}
		f.Value = v
		rep.Kind, rep.Value = classify.Of(name, f)
		if rep.Kind == classify.Bucket {
			bucket(rep, []byte(v))
		}
		return classify.Channels(rep.Kind, d), nil
	}
	rep.Kind, _ = classify.Of(name, f)
	return nil, nil
}

// readHash fills in what a hash's kind shows: a read-write lock's mode, a
// rate limiter's windows, a group's values, a lock's holders.
func readHash(ctx context.Context, rdb redis.UniversalClient, rep *Report, fields map[string]string) error {
	var err error
	switch rep.Kind {
	case classify.RWLock:
		mode := fields["mode"]
		rep.Mode = &mode
	case classify.RateLimiter:
		rl, ks, err := rateLimiter(ctx, rdb, rep.Name, fields)
		if err != nil {
			return err
		}
		rep.RateLimiter = rl
		rep.Keys = append(rep.Keys, ks...)
		return nil
	case classify.Group:
		rep.GroupValues = groupValues(fields, time.Now().UnixMilli())
		return nil
	}
	if classify.HasHolders(rep.Kind) {
		rep.Holders, err = holders(ctx, rdb, rep.Name, fields, rep.Kind == classify.RWLock)
	}
	return err
}

// readCompanions reads a permit-expirable semaphore's permits and a fenced
// lock's token.
func readCompanions(ctx context.Context, rdb redis.UniversalClient, rep *Report, extra map[string]KeyInfo, d classify.Names) error {
	if extra[d.PESTimeout].Type == "zset" {
		var err error
		if rep.Permits, err = Permits(ctx, rdb, d.PESTimeout); err != nil {
			return err
		}
	}
	if _, ok := extra[d.Token]; ok {
		if t, err := rdb.Get(ctx, d.Token).Int64(); err == nil {
			rep.FencingToken = &t
		}
	}
	return nil
}

// readWaiters counts the subscribers of channels and settles an integer
// string's kind by them.
func readWaiters(ctx context.Context, rdb redis.UniversalClient, rep *Report, channels []string, d classify.Names) error {
	if len(channels) > 0 {
		var err error
		if rep.Channels, err = subscribers(ctx, rdb, channels); err != nil {
			return err
		}
	}
	for _, c := range rep.Channels {
		rep.Waiters += c.Subscribers
		if c.ShardSubscribers != nil {
			rep.Waiters += *c.ShardSubscribers
		}
	}
	rep.Kind, rep.Alternatives = classify.Resolve(rep.Kind, func(ch string) int64 { return channelWaiters(rep.Channels, ch) }, d)
	return nil
}

// bucket fills in a bucket's report: the codec its bytes suggest and the
// value decoded with it, as get prints it.
func bucket(rep *Report, data []byte) {
	rep.Kind = classify.Bucket
	rep.raw = data
	size := int64(len(data))
	rep.Size = &size
	name := codec.Guess(data)
	rep.Codec = &name
	v, err := decodeValue(GetCodecs[name](), data)
	if err != nil {
		rep.decodeErr = err // not expected: Guess only names a codec that decodes
		return
	}
	rep.Decoded = v
}

func channelWaiters(cs []ChannelSub, ch string) int64 {
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

func keyInfo(ctx context.Context, rdb redis.UniversalClient, key string) (KeyInfo, error) {
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
	ki.TTLms = ttlMillis(d)
	return ki, nil
}

// ttlMillis turns go-redis' PTTL result into Redis' own numbers: -1 for no
// expiry, -2 for no key.
func ttlMillis(d time.Duration) int64 {
	if d < 0 {
		return int64(d) // go-redis returns -1 and -2 (nanoseconds) as they are
	}
	return d.Milliseconds()
}

// holderList lists a lock hash's holders, by field, without the read
// holds' TTLs.
func holderList(fields map[string]string, rw bool) []Holder {
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

func holders(ctx context.Context, rdb redis.UniversalClient, name string, fields map[string]string, rw bool) ([]Holder, error) {
	out := holderList(fields, rw)
	for i := range out {
		h := &out[i]
		if h.Mode != "read" {
			continue
		}
		// Each read hold k has its own timeout key W:L:rwlock_timeout:k.
		h.ReadTTLsms = []int64{}
		for k := int64(1); k <= h.Holds && k <= maxListed; k++ {
			key := rwlock.TimeoutPrefix(name, h.Field) + ":" + strconv.FormatInt(k, 10)
			d, err := rdb.PTTL(ctx, key).Result()
			if err != nil {
				return nil, fmt.Errorf("PTTL %s: %w", key, err)
			}
			h.ReadTTLsms = append(h.ReadTTLsms, ttlMillis(d))
		}
	}
	return out, nil
}

func fairQueue(ctx context.Context, rdb redis.UniversalClient, d classify.Names) ([]Queued, error) {
	list, err := rdb.LRange(ctx, d.Queue, 0, maxListed-1).Result()
	if err != nil {
		return nil, fmt.Errorf("LRANGE %s: %w", d.Queue, err)
	}
	now := time.Now().UnixMilli()
	out := []Queued{}
	for _, f := range list {
		q := Queued{Field: f}
		q.ClientID, q.OwnerID, _ = classify.ParseOwner(f)
		s, err := rdb.ZScore(ctx, d.Timeout, f).Result()
		switch {
		case errors.Is(err, redis.Nil):
		case err != nil:
			return nil, fmt.Errorf("ZSCORE %s: %w", d.Timeout, err)
		default:
			ms := int64(s)
			q.TimeoutMs = &ms
			q.Stale = ms <= now
			in := ms - now
			q.StaleInMs = &in
		}
		out = append(out, q)
	}
	return out, nil
}

func Permits(ctx context.Context, rdb redis.UniversalClient, key string) ([]Permit, error) {
	zs, err := rdb.ZRangeWithScores(ctx, key, 0, maxListed-1).Result()
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

// subscribers counts the subscribers of each channel: PUBSUB NUMSUB (in a
// cluster summed over every node, since plain pub/sub spans the cluster) and
// PUBSUB SHARDNUMSUB (in a cluster asked of the master owning the channel's
// slot).
func subscribers(ctx context.Context, rdb redis.UniversalClient, channels []string) ([]ChannelSub, error) {
	out := make([]ChannelSub, len(channels))
	for i, c := range channels {
		out[i].Channel = c
	}
	switch c := rdb.(type) {
	case *redis.ClusterClient:
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
			return nil, fmt.Errorf("PUBSUB NUMSUB: %w", err)
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
				return nil, fmt.Errorf("master of %s: %w", out[i].Channel, err)
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
				return nil, fmt.Errorf("PUBSUB SHARDNUMSUB: %w", err)
			}
			for _, i := range g.idx {
				if err == nil {
					n := m[out[i].Channel]
					out[i].ShardSubscribers = &n
				}
			}
		}
	default:
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
	}
	return out, nil
}

// isRedisError reports an error reply of Redis (an unknown subcommand on an
// old server), as opposed to a network failure.
func isRedisError(err error) bool {
	var re redis.Error
	return errors.As(err, &re)
}

func printReport(w io.Writer, r *Report) {
	fmt.Fprintf(w, "%s\n", r.Name)
	row := func(k, format string, a ...any) { fmt.Fprintf(w, "  %-12s %s\n", k, fmt.Sprintf(format, a...)) }
	kind := r.Kind
	switch {
	case classify.IsUnknown(r.Kind):
		kind = "unknown (" + unknownText(r) + ")"
	case r.Kind == classify.AtomicLong:
		kind = "integer string: an atomic long, or a semaphore/latch with no waiters (Redis " + r.Type + ")"
	case r.Type != "none":
		kind += " (Redis " + r.Type + ")"
	}
	row("kind", "%s", kind)
	if r.Type != "none" {
		row("ttl", "%s", ttlText(r.TTLms))
	}
	if r.Mode != nil {
		row("mode", "%s", *r.Mode)
	}
	if r.Value != nil {
		label := "value"
		switch r.Kind {
		case classify.Semaphore:
			label = "permits"
		case classify.Expirable:
			label = "available"
		case classify.Latch:
			label = "count"
		case classify.SemOrLatch:
			label = "value"
		}
		row(label, "%d", *r.Value)
	}
	if r.Kind == classify.Bucket {
		printBucket(w, r, row)
	}
	if r.RateLimiter != nil {
		printRateLimiter(w, r.RateLimiter, row)
	}
	if r.FencingToken != nil {
		row("token", "%d (fenced lock's last token)", *r.FencingToken)
	}
	if r.Kind == classify.Group {
		printGroup(w, r, row)
	}
	if strings.HasSuffix(r.Kind, "lock") && r.Kind != classify.Group {
		if len(r.Holders) == 0 {
			row("holders", "none")
		} else {
			row("holders", "%d", len(r.Holders))
		}
		for _, h := range r.Holders {
			fmt.Fprintf(w, "    %s\n", HolderText(h))
			if h.ClientID != nil {
				fmt.Fprintf(w, "      %s\n", identityText(h))
			}
		}
	}
	if len(r.Queue) > 0 {
		row("queue", "%d waiting, head first", len(r.Queue))
		now := time.Now().UnixMilli()
		for _, q := range r.Queue {
			t := "no timeout"
			if q.TimeoutMs != nil {
				if q.Stale {
					t = fmt.Sprintf("stale since %s", FmtMillis(now-*q.TimeoutMs))
				} else {
					t = fmt.Sprintf("gives up in %s", FmtMillis(*q.TimeoutMs-now))
				}
			}
			fmt.Fprintf(w, "    %s  %s\n", ownerText(q.Field, q.ClientID, q.OwnerID), t)
			if q.ClientID != nil {
				fmt.Fprintf(w, "      %s\n", clientText(q.Client))
			}
		}
	}
	if r.Kind == classify.Expirable {
		expired := 0
		for _, p := range r.Permits {
			if p.Expired {
				expired++
			}
		}
		if expired > 0 {
			row("acquired", "%d permits, %d of them expired (back in the pool when the semaphore is next used)", len(r.Permits), expired)
		} else {
			row("acquired", "%d permits", len(r.Permits))
		}
		for _, p := range r.Permits {
			t := "no lease"
			if p.ExpiresMs != nil {
				at := time.UnixMilli(*p.ExpiresMs).UTC().Format("2006-01-02T15:04:05.000Z")
				if p.Expired {
					t = "expired " + FmtMillis(-*p.ExpiresInMs) + " ago, at " + at
				} else {
					t = "expires in " + FmtMillis(*p.ExpiresInMs) + ", at " + at
				}
			}
			fmt.Fprintf(w, "    %s  %s\n", p.ID, t)
		}
	}
	if r.Kind != classify.Bucket && r.Kind != classify.RateLimiter {
		row("waiters", "%d subscribed connection(s)", r.Waiters)
	}
	for _, c := range r.Channels {
		shard := "n/a"
		if c.ShardSubscribers != nil {
			shard = strconv.FormatInt(*c.ShardSubscribers, 10)
		}
		fmt.Fprintf(w, "    %s  SUBSCRIBE %d, SSUBSCRIBE %s\n", c.Channel, c.Subscribers, shard)
	}
	if len(r.Keys) > 0 {
		fmt.Fprintf(w, "  keys\n")
		for _, k := range r.Keys {
			fmt.Fprintf(w, "    %s  %s, ttl %s\n", k.Key, k.Type, ttlText(k.TTLms))
		}
	}
}

// bucketLines and bucketBytes bound a bucket's value as inspect prints it;
// "redisson get" prints it all.
const (
	bucketLines = 40
	bucketBytes = 4096
)

// printBucket prints a bucket's codec and value.
func printBucket(w io.Writer, r *Report, row func(k, format string, a ...any)) {
	name := *r.Codec
	switch name {
	case codec.GuessBytes:
		row("codec", "bytes: ByteArrayCodec, or Kryo5Codec (Redisson's default since 3.19) or")
		row("", "another Java-only codec, which Go cannot read. Kryo is not portable: to share")
		row("", "the value, both sides use a portable codec, in Java for example")
		row("", "config.setCodec(new org.redisson.codec.JsonJacksonCodec())")
	case codec.GuessString:
		row("codec", "string (%s, guessed from the bytes)", getCodecJava[name])
		if json.Valid(r.raw) {
			row("", "also JSON without type information: a String, Integer or Boolean of JsonJacksonCodec,")
			row("", "or TypedJsonJacksonCodec (try \"redisson get --codec json\" or \"--codec typedjson\")")
		}
	default:
		row("codec", "%s (%s, guessed from the bytes)", name, getCodecJava[name])
	}
	row("size", "%d bytes", *r.Size)
	if r.decodeErr != nil {
		row("value", "cannot decode: %v", r.decodeErr)
		return
	}
	out, err := printJSON(r.Decoded)
	if err != nil {
		row("value", "cannot print: %v", err)
		return
	}
	cut := false
	if len(out) > bucketBytes {
		n := bucketBytes
		for n > 0 && !utf8.RuneStart(out[n]) {
			n--
		}
		out, cut = out[:n], true
	}
	lines := strings.Split(string(out), "\n")
	if len(lines) > bucketLines {
		lines, cut = lines[:bucketLines], true
	}
	if cut {
		lines[len(lines)-1] += "…"
		lines = append(lines, fmt.Sprintf("(cut short: redisson get --codec %s %s prints it all)", name, run.ShellQuote(r.Name)))
	}
	row("value", "%s", lines[0])
	for _, l := range lines[1:] {
		row("", "%s", l)
	}
	if name == codec.GuessBytes {
		const shown = 32
		if len(r.raw) > shown {
			row("hex", "%s… (first %d bytes)", hex.EncodeToString(r.raw[:shown]), shown)
		} else {
			row("hex", "%s", hex.EncodeToString(r.raw))
		}
	}
}

// redisValue says what an unknown key holds: "Redis list", "Redis string
// that is not an integer".
func redisValue(r *Report) string {
	if r.Type == "string" {
		return "Redis string that is not an integer"
	}
	return "Redis " + r.Type
}

// unknownText is the kind line of an unknown key.
func unknownText(r *Report) string {
	return redisValue(r) + ", not a Redisson lock or synchronizer"
}

// describeKind names what a report found, with an article: "a semaphore",
// "a Redis list", "nothing".
func DescribeKind(r *Report) string {
	switch {
	case r.Kind == classify.None:
		return "nothing"
	case classify.IsUnknown(r.Kind), r.Kind == classify.Bucket:
		return "a " + redisValue(r)
	case r.Kind == classify.AtomicLong:
		return "an integer string (a semaphore or count-down latch nobody waits on, or an atomic long)"
	case r.Kind == classify.SemOrLatch:
		return "a semaphore or count-down latch"
	}
	return "a " + r.Kind
}

func HolderText(h Holder) string {
	s := ownerText(h.Field, h.ClientID, h.OwnerID)
	switch h.Mode {
	case "exclusive":
		return fmt.Sprintf("%s  holds %d", s, h.Holds)
	default:
		s = fmt.Sprintf("%s  %s ×%d", s, h.Mode, h.Holds)
		if len(h.ReadTTLsms) > 0 {
			ttls := make([]string, len(h.ReadTTLsms))
			for i, t := range h.ReadTTLsms {
				ttls[i] = ttlText(t)
			}
			s += "  (read holds expire in " + strings.Join(ttls, ", ") + ")"
		}
		return s
	}
}

// identityText is a holder's client and how long it has held: "report.sh
// pid 4242 on web-3, held for 12.5s".
func identityText(h Holder) string {
	s := clientText(h.Client)
	if h.Client == nil {
		return s
	}
	if h.HeldForMs != nil {
		s += ", held for " + FmtMillis(*h.HeldForMs)
	}
	return s + " (redisson-go " + h.Client.Library + ", " + h.Client.Go + ", client started " +
		time.UnixMilli(h.Client.StartedMs).UTC().Format("2006-01-02T15:04:05Z") + ")"
}

func ownerText(field string, client *string, owner *int64) string {
	if client == nil || owner == nil {
		return fmt.Sprintf("field %q (not a Redisson owner)", field)
	}
	return fmt.Sprintf("client %s  owner %d", *client, *owner)
}

func ttlText(ms int64) string {
	switch ms {
	case -1:
		return "none (no expiry)"
	case -2:
		return "no key"
	}
	return FmtMillis(ms)
}

func FmtMillis(ms int64) string {
	return (time.Duration(ms) * time.Millisecond).String()
}

// groupValues lists the values held in a group's hash, soonest expiry
// first (field id order among equals).
func groupValues(fields map[string]string, now int64) []GroupValue {
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

// printGroup prints a group multi-lock's values.
func printGroup(w io.Writer, r *Report, row func(k, format string, a ...any)) {
	if len(r.GroupValues) == 0 {
		row("values", "none held")
		return
	}
	row("values", "%d held (field id = HighwayHash of the value; the value itself is not stored)", len(r.GroupValues))
	for _, g := range r.GroupValues {
		exp := "no expire_time"
		switch {
		case g.ExpiresInMs == nil:
		case g.Expired:
			exp = "expired " + FmtMillis(-*g.ExpiresInMs) + " ago (free for another owner)"
		default:
			exp = "expires in " + FmtMillis(*g.ExpiresInMs)
		}
		fmt.Fprintf(w, "    %s  %s  holds %d  %s\n", g.Field, ownerText(g.Field, g.ClientID, g.OwnerID), g.Holds, exp)
	}
}
