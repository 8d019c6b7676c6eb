// Package inspect is "redisson inspect": everything about one object,
// printed as a report or as JSON.
package inspect

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson/codec"
	"github.com/goredisson/redisson/internal/cli/classify"
	"github.com/goredisson/redisson/internal/cli/cliflag"
	"github.com/goredisson/redisson/internal/cli/conn"
	"github.com/goredisson/redisson/internal/cli/get"
	"github.com/goredisson/redisson/internal/cli/objinfo"
	"github.com/goredisson/redisson/internal/cli/watch"
	"github.com/goredisson/redisson/keys"
)

const inspectDescription = `
Shows what Redis holds under NAME and the keys and channels Redisson derives
from it: the kind of object, its TTL, the holders of a lock (client id, owner
id, hold count, and from the holder's registration record its host, pid,
program and how long it has held; "unknown client (Java, or registration
off)" without one; "GONE:", with when it was last seen, when the client
has not refreshed its record for two refresh periods: it died or lost
Redis, and its holds last until their lease ends), the fair-lock queue, semaphore permits (with each acquired
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
  hash whose fields are all "<client uuid>:<owner>"
        with a hold count                           lock, or fair lock when the holder's
                                                    registration record says it took a
                                                    fair lock
  other hash                                        map (a Redisson map, or any hash)
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
  no key, with a fair lock's queue or timeout       fair lock (free)
  no key, with a fenced lock's token                lock (free)
  no key                                            none (exit 1 when nothing at all,
                                                    no derived key, no waiter, is there)
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
                 library, go, gone, seen_ago_ms, seen_ms}, null for an unknown
                 client (Java, or registration off); gone = not seen for longer
                 than two refresh periods (at least one and 3 s): died or cut off;
                 seen_ago_ms = since its last refresh (by the record's TTL and
                 PTTL); seen_ms = when (its clock); held_for_ms = how long the hold has lasted (by the holder's
                 clock and the record's TTL), null when unknown
  queue          fair-lock waiters, head first: [] of {field, client_id, owner_id,
                 timeout_ms, stale, stale_in_ms, client}; timeout_ms = absolute time (ms since
                 the epoch, the waiter's clock; the ZSCORE in redisson_lock_timeout:{NAME})
                 after which the entry is stale: Redisson drops a stale entry when it
                 reaches the head, and its waiter, if it still waits, queues again at the
                 tail; stale_in_ms = timeout_ms minus now (negative: stale for that
                 long); both null when not in the zset;
                 client = the waiter's client, as for holders
  value          semaphore permits / latch count / atomic long (string integer);
                 else null
  permits        permit-expirable semaphore: acquired permits, soonest expiry first,
                 [] of {id, expires_ms, expires_in_ms, expired}: id = hex of the raw
                 permit id; expires_ms = absolute expiry (ms since the epoch, the
                 acquiring client's clock; the ZSCORE in {NAME}:timeout), null = no
                 lease; expires_in_ms = expires_ms minus now (negative: expired that
                 long ago), null = no lease; expired = the lease has passed (the
                 permit returns to "value" when the next script runs); client_id and
                 client = its holder when a client's record lists the permit, else null
  permit_holders semaphore (or an integer that may be one): [] of {client_id, permits,
                 client}: the clients whose records list permits of it that they took
                 and have not given back (a plain semaphore's permits have no owner in
                 Redis; the record says who took them), client as for holders
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
                 that minus now, expired = passed (another owner may take it);
                 client = the owner's client, as for holders; else []
  channels       [] of {channel, subscribers, shard_subscribers}: PUBSUB NUMSUB and
                 PUBSUB SHARDNUMSUB (null where unsupported, Redis < 7) of each
                 channel of the kind (all candidate channels when the kind is none
                 or unknown); in a cluster NUMSUB is summed over all nodes and
                 SHARDNUMSUB asked of the master owning the channel's slot
  waiters        sum of the subscribers and shard_subscribers of those channels:
                 connections subscribed, one per waiting client (a Redisson client
                 shares one subscription among all its waiting threads)
  waiting        goroutines waiting on those channels, as the records of live
                 redisson-go clients count them (written every refresh period)
  waiter_connections
                 the subscribed connections no live record accounts for: one per
                 waiting client without a record (Java, registration off)
  keys           [] of {key, type, ttl_ms}: NAME and each derived key that exists
  alternatives   [] of the other kinds the same state fits: for "atomiclong",
                 "semaphore", "count-down latch" and "bucket"; else []
  codec          bucket: the codec its bytes suggest, a --codec of "redisson get":
                 "json", "msgpack", "string" or "bytes"; else null
  decoded        bucket: the value decoded with that codec, as "redisson get
                 --codec <codec>" prints it (bytes: base64); else null
  size           bucket: the value's length in bytes; else null
  cache          a map cache, set cache, local cached map, atomic double, id
                 generator, Bloom filter, HyperLogLog or adder: its figures
                 (as "redisson ls --json", see docs/cli.md); else null
  listeners      [] of {channel, subscribers, shard_subscribers} of that
                 object's own channels (near caches, entry listeners, adder
                 instances): listeners, not waiters; else []`

const inspectExamples = `  redisson inspect orders:42
  redisson inspect --watch orders:42                    # redraw every second, changes marked *
  redisson inspect --json orders:42 | jq .holders
  redisson inspect --redis redis://10.0.0.5:6379/2 my-semaphore
  redisson inspect --cluster --redis redis://10.0.0.1:7000 --json jobs`

// Command runs "redisson inspect" with its arguments and returns the exit
// code.
func Command(args []string) int {
	fs := cliflag.NewFlagSet("inspect", "redisson inspect [--json] [--watch [--interval D]] [connection flags] NAME", inspectDescription, inspectExamples)
	var cf conn.Flags
	cf.Register(fs)
	asJSON := fs.Bool("json", false, "print one JSON object (fields above)")
	watching := fs.Bool("watch", false, "redraw every --interval, marking the lines that changed with * (durations are not compared)")
	interval := fs.Duration("interval", time.Second, "--watch: time between drawings")
	pos, code, done := cliflag.ParseFlags(fs, args, true)
	if done {
		return code
	}
	name, code := cliflag.OneName(fs, pos)
	if name == "" {
		return code
	}
	if code, ok := watch.CheckInterval(fs, *watching, *interval); !ok {
		return code
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*cf.Timeout)
	defer cancel()
	cn, code := conn.ConnectOrExit(ctx, fs, &cf, nil)
	if cn == nil {
		return code
	}
	defer cn.Close()
	var last *Report // the report of the last drawing
	render := func(ctx context.Context, w io.Writer) error {
		rep, err := Inspect(ctx, cn.RDB, name)
		if err != nil {
			return err
		}
		last = rep
		if *asJSON {
			enc := json.NewEncoder(w)
			enc.SetIndent("", "  ")
			return enc.Encode(rep)
		}
		printReport(w, rep)
		return nil
	}
	if *watching {
		return watch.Loop(fs.Name(), "redisson inspect "+cliflag.Visible(name), *interval, 4*cf.Timeout, render)
	}
	if err := render(ctx, os.Stdout); err != nil {
		return cliflag.Errorf(fs.Name(), "%v", err)
	}
	if Missing(last) {
		return cliflag.Errorf(fs.Name(), "%s: no such object (no key by that name, none Redisson derives from it, no waiter)", cliflag.Visible(name))
	}
	return cliflag.ExitOK
}

// Missing reports a report of nothing: no key, derived or own, and nobody
// waiting on the name's channels.
func Missing(rep *Report) bool {
	return rep.Kind == classify.None && len(rep.Keys) == 0 && rep.Waiters == 0
}

// Inspect reads everything about name.
func Inspect(ctx context.Context, rdb redis.UniversalClient, name string) (*Report, error) {
	d := classify.Derive(name)
	rep := &Report{Name: name, Holders: []objinfo.Holder{}, Queue: []objinfo.Queued{}, Permits: []objinfo.Permit{}, Channels: []objinfo.ChannelSub{}, Keys: []objinfo.KeyInfo{},
		Alternatives: []string{}, GroupValues: []objinfo.GroupValue{}, Listeners: []objinfo.ChannelSub{}}
	head, err := objinfo.ReadKey(ctx, rdb, name)
	if err != nil {
		return nil, err
	}
	rep.Type, rep.TTLms = head.Type, head.TTLms
	if head.Type != "none" {
		rep.Keys = append(rep.Keys, head)
	}
	extra := map[string]objinfo.KeyInfo{}
	for _, k := range []string{d.Queue, d.Timeout, d.PESTimeout, d.Token} {
		ki, err := objinfo.ReadKey(ctx, rdb, k)
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
	_, hasToken := extra[d.Token]
	facts := classify.Facts{Type: head.Type, FairKeys: hasQueue || hasTimeout, PESTimeout: extra[d.PESTimeout].Type == "zset", Token: hasToken}
	if err := cacheFacts(ctx, rdb, name, d, &facts); err != nil {
		return nil, err
	}
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
	if err := readCache(ctx, rdb, rep, d); err != nil {
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
		rep.GroupValues = objinfo.GroupValues(fields, time.Now().UnixMilli())
		return nil
	}
	if classify.HasHolders(rep.Kind) {
		rep.Holders, err = holders(ctx, rdb, rep.Name, fields, rep.Kind == classify.RWLock)
	}
	return err
}

// readCompanions reads a permit-expirable semaphore's permits and a fenced
// lock's token.
func readCompanions(ctx context.Context, rdb redis.UniversalClient, rep *Report, extra map[string]objinfo.KeyInfo, d classify.Names) error {
	if extra[d.PESTimeout].Type == "zset" {
		var err error
		if rep.Permits, err = objinfo.Permits(ctx, rdb, d.PESTimeout); err != nil {
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
		if rep.Channels, err = objinfo.Subscribers(ctx, rdb, channels); err != nil {
			return err
		}
	}
	for _, c := range rep.Channels {
		rep.Waiters += c.Subscribers
		if c.ShardSubscribers != nil {
			rep.Waiters += *c.ShardSubscribers
		}
	}
	rep.Kind, rep.Alternatives = classify.Resolve(rep.Kind, func(ch string) int64 { return objinfo.ChannelWaiters(rep.Channels, ch) }, d)
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
	v, err := get.DecodeValue(get.Codecs[name](), data)
	if err != nil {
		rep.decodeErr = err // not expected: Guess only names a codec that decodes
		return
	}
	rep.Decoded = v
}

func holders(ctx context.Context, rdb redis.UniversalClient, name string, fields map[string]string, rw bool) ([]objinfo.Holder, error) {
	out := objinfo.HolderList(fields, rw)
	for i := range out {
		h := &out[i]
		if h.Mode != "read" {
			continue
		}
		// Each read hold k has its own timeout key W:L:rwlock_timeout:k.
		h.ReadTTLsms = []int64{}
		for k := int64(1); k <= h.Holds && k <= objinfo.MaxListed; k++ {
			key := keys.ReadWriteLockTimeoutPrefix(name, h.Field) + ":" + strconv.FormatInt(k, 10)
			d, err := rdb.PTTL(ctx, key).Result()
			if err != nil {
				return nil, fmt.Errorf("PTTL %s: %w", key, err)
			}
			h.ReadTTLsms = append(h.ReadTTLsms, objinfo.TTLMillis(d))
		}
	}
	return out, nil
}

func fairQueue(ctx context.Context, rdb redis.UniversalClient, d classify.Names) ([]objinfo.Queued, error) {
	list, err := rdb.LRange(ctx, d.Queue, 0, objinfo.MaxListed-1).Result()
	if err != nil {
		return nil, fmt.Errorf("LRANGE %s: %w", d.Queue, err)
	}
	now := time.Now().UnixMilli()
	out := []objinfo.Queued{}
	for _, f := range list {
		q := objinfo.Queued{Field: f}
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
