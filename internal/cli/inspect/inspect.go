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
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson/codec"
	"github.com/goredisson/redisson/fairlock"
	"github.com/goredisson/redisson/internal/cli/cliflag"
	"github.com/goredisson/redisson/internal/cli/conn"
	"github.com/goredisson/redisson/internal/cli/run"
	"github.com/goredisson/redisson/internal/core"
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

const (
	KindNone     = "none"
	KindLock     = "lock"
	KindFair     = "fair lock"
	KindRW       = "read-write lock"
	KindPES      = "permit-expirable semaphore"
	KindSemOrLat = "semaphore or latch"
	KindSem      = "semaphore"
	KindLatch    = "count-down latch"
	KindAtomic   = "atomiclong"
	KindBucket   = "bucket"
	KindGroup    = "group multi-lock"
)

// pesNoExpiry is the score of a permit without lease (Redisson's
// 922337203685477).
const pesNoExpiry = 922337203685477

// maxListed bounds the queue, permits and read timeout keys read.
const maxListed = 1000

// ownerField is Redisson's "<36-char client uuid>:<thread/owner id>", with
// ":write" for a write lock holder.
var ownerField = regexp.MustCompile(`^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}):(-?[0-9]+)(:write)?$`)

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

// derived are the keys and channels Redisson derives from a name (protocol
// §1.5).
type derived struct {
	lockChan, rwChan, semChan, latchChan string
	queue, timeout, PesTimeout, token    string
}

func Derive(name string) derived {
	return derived{
		lockChan: core.PrefixName("redisson_lock__channel", name),
		rwChan:   core.PrefixName("redisson_rwlock", name),
		semChan:  core.PrefixName("redisson_sc", name),
		// The latch channel always adds braces, even around a tagged name.
		latchChan:  "redisson_countdownlatch__channel__{" + name + "}",
		queue:      fairlock.QueueName(name),
		timeout:    fairlock.TimeoutName(name),
		PesTimeout: core.SuffixName(name, "timeout"),
		token:      core.PrefixName("redisson_lock_token", name),
	}
}

// inspect reads everything about name.
func Inspect(ctx context.Context, rdb redis.UniversalClient, name string) (*Report, error) {
	d := Derive(name)
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
	for _, k := range []string{d.queue, d.timeout, d.PesTimeout, d.token} {
		ki, err := keyInfo(ctx, rdb, k)
		if err != nil {
			return nil, err
		}
		if ki.Type != "none" {
			extra[k] = ki
			rep.Keys = append(rep.Keys, ki)
		}
	}
	_, hasQueue := extra[d.queue]
	_, hasTimeout := extra[d.timeout]
	pes := extra[d.PesTimeout].Type == "zset"

	var channels []string
	switch head.Type {
	case "hash":
		fields, err := rdb.HGetAll(ctx, name).Result()
		if err != nil {
			return nil, fmt.Errorf("HGETALL %s: %w", name, err)
		}
		rep.Kind = hashKind(fields, hasQueue || hasTimeout)
		channels = kindChannels(rep.Kind, d)
		switch rep.Kind {
		case KindRW:
			mode := fields["mode"]
			rep.Mode = &mode
		case KindRateLimiter:
			rl, keys, err := rateLimiter(ctx, rdb, name, fields)
			if err != nil {
				return nil, err
			}
			rep.RateLimiter = rl
			rep.Keys = append(rep.Keys, keys...)
		case KindGroup:
			rep.GroupValues = groupValues(fields, time.Now().UnixMilli())
		}
		if rep.Kind != KindRateLimiter && rep.Kind != KindGroup {
			if rep.Holders, err = holders(ctx, rdb, name, fields, rep.Kind == KindRW); err != nil {
				return nil, err
			}
		}
	case "string":
		v, err := rdb.Get(ctx, name).Result()
		if err != nil && !errors.Is(err, redis.Nil) {
			return nil, fmt.Errorf("GET %s: %w", name, err)
		}
		switch {
		case errors.Is(err, redis.Nil):
			rep.Kind = KindNone // deleted in between
		default:
			rep.Kind, rep.Value = stringKind(v, pes)
			if rep.Kind == KindBucket {
				bucket(rep, []byte(v))
			}
			channels = kindChannels(rep.Kind, d)
		}
	case "none":
		rep.Kind = KindNone
	default:
		rep.Kind = kindUnknown(head.Type)
	}
	if channels == nil {
		channels = []string{d.lockChan, d.rwChan, d.semChan, d.latchChan}
	}

	if hasQueue {
		if rep.Queue, err = fairQueue(ctx, rdb, d); err != nil {
			return nil, err
		}
		// Fair-lock waiters each listen on their own channel.
		for _, q := range rep.Queue {
			channels = append(channels, d.lockChan+":"+q.Field)
		}
	}
	if pes {
		if rep.Permits, err = Permits(ctx, rdb, d.PesTimeout); err != nil {
			return nil, err
		}
	}
	if _, ok := extra[d.token]; ok {
		if t, err := rdb.Get(ctx, d.token).Int64(); err == nil {
			rep.FencingToken = &t
		}
	}
	if len(channels) > 0 {
		if rep.Channels, err = subscribers(ctx, rdb, channels); err != nil {
			return nil, err
		}
	}
	for _, c := range rep.Channels {
		rep.Waiters += c.Subscribers
		if c.ShardSubscribers != nil {
			rep.Waiters += *c.ShardSubscribers
		}
	}
	rep.Kind, rep.Alternatives = integerKind(rep.Kind, rep.Channels, d)
	if err := identify(ctx, rdb, rep); err != nil {
		return nil, err
	}
	return rep, nil
}

// The classification inspect and ls share: hashKind and stringKind say what
// a key holds from its content, kindChannels which channels its waiters
// listen on, integerKind what an integer string is from those channels'
// subscribers.

// hashKind is the kind of a hash with these fields; fairKeys: the fair
// lock's queue or timeout key exists.
func hashKind(fields map[string]string, fairKeys bool) string {
	_, isRW := fields["mode"]
	switch {
	case isRW:
		return KindRW
	case isRateLimiter(fields):
		return KindRateLimiter
	case isGroup(fields):
		return KindGroup
	case fairKeys:
		return KindFair
	}
	return KindLock
}

// stringKind is the kind of a string holding v: a bucket unless it is an
// integer, then a permit-expirable semaphore when its timeout zset exists
// (pes), else kindSemOrLat, which integerKind resolves.
func stringKind(v string, pes bool) (string, *int64) {
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	switch {
	case err != nil:
		return KindBucket, nil
	case pes:
		return KindPES, &n
	}
	return KindSemOrLat, &n
}

// kindChannels are the channels the waiters of a kind listen on (a fair
// lock's waiters also on one channel each); nil for none or unknown: every
// candidate channel.
func kindChannels(kind string, d derived) []string {
	switch kind {
	case KindRW:
		return []string{d.rwChan}
	case KindLock, KindFair, KindGroup:
		return []string{d.lockChan}
	case KindPES:
		return []string{d.semChan}
	case KindSemOrLat:
		return []string{d.semChan, d.latchChan}
	case KindRateLimiter, KindBucket:
		return []string{} // no pub/sub
	}
	return nil
}

// integerKind resolves kindSemOrLat from the subscribers of its channels:
// a semaphore or a latch when only that channel has some, atomiclong (with
// the alternatives) when neither has. Other kinds are returned as they are.
func integerKind(kind string, cs []ChannelSub, d derived) (string, []string) {
	if kind != KindSemOrLat {
		return kind, []string{}
	}
	sem, latch := channelWaiters(cs, d.semChan), channelWaiters(cs, d.latchChan)
	switch {
	case sem > 0 && latch == 0:
		return KindSem, []string{}
	case latch > 0 && sem == 0:
		return KindLatch, []string{}
	case sem == 0 && latch == 0:
		// Nothing but an integer: Redis cannot say more.
		return KindAtomic, []string{KindSem, KindLatch, KindBucket}
	}
	return kind, []string{}
}

// bucket fills in a bucket's report: the codec its bytes suggest and the
// value decoded with it, as get prints it.
func bucket(rep *Report, data []byte) {
	rep.Kind = KindBucket
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

func parseOwner(field string) (client *string, owner *int64, write bool) {
	m := ownerField.FindStringSubmatch(field)
	if m == nil {
		return nil, nil, false
	}
	id, err := strconv.ParseInt(m[2], 10, 64)
	if err != nil {
		return nil, nil, false
	}
	c := strings.ToLower(m[1])
	return &c, &id, m[3] != ""
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
		h.ClientID, h.OwnerID, write = parseOwner(f)
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

func fairQueue(ctx context.Context, rdb redis.UniversalClient, d derived) ([]Queued, error) {
	list, err := rdb.LRange(ctx, d.queue, 0, maxListed-1).Result()
	if err != nil {
		return nil, fmt.Errorf("LRANGE %s: %w", d.queue, err)
	}
	now := time.Now().UnixMilli()
	out := []Queued{}
	for _, f := range list {
		q := Queued{Field: f}
		q.ClientID, q.OwnerID, _ = parseOwner(f)
		s, err := rdb.ZScore(ctx, d.timeout, f).Result()
		switch {
		case errors.Is(err, redis.Nil):
		case err != nil:
			return nil, fmt.Errorf("ZSCORE %s: %w", d.timeout, err)
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
	case IsUnknown(r.Kind):
		kind = "unknown (" + unknownText(r) + ")"
	case r.Kind == KindAtomic:
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
		case KindSem:
			label = "permits"
		case KindPES:
			label = "available"
		case KindLatch:
			label = "count"
		case KindSemOrLat:
			label = "value"
		}
		row(label, "%d", *r.Value)
	}
	if r.Kind == KindBucket {
		printBucket(w, r, row)
	}
	if r.RateLimiter != nil {
		printRateLimiter(w, r.RateLimiter, row)
	}
	if r.FencingToken != nil {
		row("token", "%d (fenced lock's last token)", *r.FencingToken)
	}
	if r.Kind == KindGroup {
		printGroup(w, r, row)
	}
	if strings.HasSuffix(r.Kind, "lock") && r.Kind != KindGroup {
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
	if r.Kind == KindPES {
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
	if r.Kind != KindBucket && r.Kind != KindRateLimiter {
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

// kindUnknown is the kind of a key no Redisson lock or synchronizer makes.
func kindUnknown(redisType string) string { return "unknown (" + redisType + ")" }

func IsUnknown(kind string) bool { return strings.HasPrefix(kind, "unknown (") }

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
	case r.Kind == KindNone:
		return "nothing"
	case IsUnknown(r.Kind), r.Kind == KindBucket:
		return "a " + redisValue(r)
	case r.Kind == KindAtomic:
		return "an integer string (a semaphore or count-down latch nobody waits on, or an atomic long)"
	case r.Kind == KindSemOrLat:
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

// isGroup reports a group multi-lock's hash (RedissonFasterMultiLock): a
// field whose value is an owner "<uuid>:<id>" with a sibling field
// "<field>:<owner>:expire_time".
func isGroup(fields map[string]string) bool {
	for f, v := range fields {
		if ownerField.MatchString(v) {
			if _, ok := fields[f+":"+v+":expire_time"]; ok {
				return true
			}
		}
	}
	return false
}

// groupValues lists the values held in a group's hash, soonest expiry
// first (field id order among equals).
func groupValues(fields map[string]string, now int64) []GroupValue {
	out := []GroupValue{}
	for f, v := range fields {
		exp, ok := fields[f+":"+v+":expire_time"]
		if !ok || !ownerField.MatchString(v) {
			continue
		}
		g := GroupValue{Field: f}
		g.ClientID, g.OwnerID, _ = parseOwner(v)
		g.Holds, _ = strconv.ParseInt(fields[f+":"+v+":lock_count"], 10, 64)
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
