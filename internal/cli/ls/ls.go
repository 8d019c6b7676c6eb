// Package ls is "redisson ls": it scans keys, folds them into objects,
// classifies them in pipelined batches and prints one line each.
package ls

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson/internal/cli/classify"
	"github.com/goredisson/redisson/internal/cli/cliflag"
	"github.com/goredisson/redisson/internal/cli/conn"
	"github.com/goredisson/redisson/internal/cli/objinfo"
	"github.com/goredisson/redisson/internal/cli/watch"
	"github.com/goredisson/redisson/internal/registry"
)

const lsDescription = `
Lists the Redisson objects whose keys match PATTERN (a SCAN MATCH glob;
default *), one line each: name, kind, state, holders, TTL and waiters. The
keys are found with SCAN (never KEYS) on the server, or on every master of a
cluster, and classified as "redisson inspect" classifies one (its kinds and
--kind names below); the look-ups are pipelined, a few round trips per 500
objects, whatever the number of keys.

The keys Redisson derives from a name are folded into their object instead
of being listed: a fair lock's redisson_lock_queue:{N} and
redisson_lock_timeout:{N}, a fenced lock's redisson_lock_token:{N}, the
unlock latches redisson_unlock_latch:{N}:<id>, a read lock's
{N}:<client>:<owner>:rwlock_timeout:<k>, a permit-expirable semaphore's
{N}:timeout, a rate limiter's {N}:value[:<client>] and {N}:permits[:<client>]
(each only with the Redis type Redisson gives it). A derived key matching
PATTERN brings in its object even when N does not match; a lock whose own
key is gone but whose derived keys remain is listed free: a fenced lock's
token (kind lock, "free, token N"), a fair lock's queue of stale entries
(kind fair lock, "free, queue N"). An unlock latch is never a line of its
own: a free lock with only latches left is not listed.

Columns:
  NAME     the object's name (its key)
  KIND     lock, fair lock, read-write lock, group multi-lock, semaphore,
           permit-expirable semaphore, count-down latch, semaphore or latch,
           atomiclong, rate limiter, bucket, map (a hash of no lock's shape:
           a Redisson map or any hash), map cache, set cache, local cached
           map, atomicdouble, id generator, bloom filter, hyperloglog,
           adder, none, unknown (<redis type>)
  STATE    free / held (a lock; read or write for a read-write lock), the
           fair-lock queue length, the values a group holds, permits (and
           acquired ones; "expired N": acquired permits whose lease has
           passed, back in the pool at the semaphore's next use), a latch's
           count, an integer's value, a rate limiter's rate, a bucket's size,
           a map's fields, a fenced lock's last token; a cache's entries
           (with TTL, max idle, expired not cleaned, max size), a local
           cached map's near caches, an id generator's next id and block, a
           Bloom filter's config, a HyperLogLog's estimate
  HOLDERS  the holder (client id:owner id, with the hold count) and how many
           more; a group multi-lock's value owners; the clients holding a
           semaphore's permits, as their records say (client id ×N permits)
  CLIENT   the first holder's client, program[pid]@host, from the record
           redisson-go clients keep under redisson-go:client:<client id>;
           "unknown client (Java, or registration off)" without one;
           "GONE <time>" after it when the client has not refreshed its
           record for two refresh periods (it died, or lost Redis): how
           long ago it was last seen
  HELD     how long the first holder has held it, when its record says
  TTL      the key's time to live; - when it has none
  WAITERS  goroutines waiting, as the waiting clients' records count them
           (redisson-go), and "N conn": connections subscribed to the
           object's channels (PUBSUB NUMSUB and SHARDNUMSUB) that no record
           accounts for, one per waiting client without a record (Java)

What ls cannot tell apart is what inspect cannot: a semaphore, a count-down
latch and an atomic long are all integer strings. An integer whose
semaphore channel (redisson_sc:{N}) alone has subscribers is a semaphore,
whose latch channel alone has some a count-down latch; with none it is
"atomiclong" (also maybe a semaphore, latch, or a bucket holding a number),
with both "semaphore or latch". A plain, fenced and spin lock share one
hash: a fenced lock shows its token in STATE, and a fair lock nobody waits
for is a "fair lock" only when its holder's registration record says so
(a Java holder's reads as "lock"). Other Redis keys are listed as "bucket"
(a string), "map" (a hash) or "unknown (<type>)".

--kind K keeps the objects of kind K (inspect's names; also lock, fairlock,
rwlock, group, semaphore, pes, latch, atomiclong, ratelimiter, bucket, map,
mapcache, setcache, localcachedmap, atomicdouble, idgenerator, bloomfilter,
hyperloglog, adder, spinlock, nonreentrantlock, nonreentrantfairlock, none,
unknown); --kind lock also keeps the spin and non-reentrant locks and --kind
fairlock the non-reentrant fair lock, whose keys are a lock's; --kind
semaphore and --kind latch also keep the integers that may be one.
--held keeps the locks with a holder, groups holding a value,
permit-expirable semaphores with an acquired permit and semaphores whose
permits a client's record says it holds.

Cost: the scan (SCAN COUNT --scan-count) goes through every key matching
PATTERN, but only the first --max-keys keys are read and listed. Past the
limit, what matters is never cut: the keys that say an object is held or
waited on by their names (a fair lock's queue and timeout, a read hold's
timeout, a permit-expirable semaphore's timeout), every object with
waiters (PUBSUB CHANNELS), every lock a registered client's record lists
as held, and every key a --pin NAME or --pin PATTERN (a glob, repeatable)
matches are kept; the other keys are left out, and the listing ends with a
note saying how many and how to see them (in --json, "truncated": true and
"left_out_keys"). A lock held by a client without a record (Java) and
without waiters can be left out: --pin it. Hashes of more than 1000 fields
are not read whole. Names with control characters are printed quoted,
with the characters escaped (\x1b, \n).

--watch redraws every --interval (default 1s) until SIGINT or SIGTERM (exit
0), marking with "*" the lines that changed since the previous drawing
(durations, which change every time, are not compared). The first drawing
scans everything; each later one reads again only the hot objects (waited
on, queued for, held by a client with a record or listed in one, with
acquired expirable permits, pinned, TTL passed) and the next slice of a
rotating SCAN, a whole pass taking 10 drawings, or one per 1000 keys read if
more: a change of a hot object shows at the next drawing, any other (a lock
taken by a client without a record and without waiters, a key added,
changed or deleted) within one whole pass begun after it. Unchanged lock and
map hashes cost the pass one HGETALL.

The clients' records (redisson-go:client:<id>) are read for the holders,
one pipelined GET and PTTL each, and never listed as objects.

--json prints {pattern, objects, scanned_keys, max_keys, truncated,
matched_keys, left_out_keys, kept_past_limit}: scanned_keys = keys read,
matched_keys = keys matching PATTERN, left_out_keys = of them not read,
kept_past_limit = read although past --max-keys; objects being [] of
{name, kind, type, state, held, holders, value, queue, acquired, expired,
rate_limiter, fencing_token, size, ttl_ms, waiters, waiting,
waiter_connections, keys, alternatives, cache}: waiters = subscribed connections,
waiting = goroutines the records count, waiter_connections = connections
no record accounts for;
holders as inspect's (read_ttls_ms null; client and held_for_ms as inspect's; a group's values as holders whose
field is the value's id); value = permits, count or integer; queue = fair
lock queue length; acquired = a permit-expirable semaphore's acquired
permits whose lease has not passed, expired = those whose lease has;
rate_limiter = inspect's without windows; size = bucket bytes or map fields;
keys = the object's keys the scan found (its own and the derived ones);
cache = a cache's, counter's or probabilistic object's figures (see
docs/cli.md), null for other kinds.

A map cache's zsets redisson__timeout__set:{N}, redisson__idle__set:{N},
redisson__map_cache__last_access__set:{N} and options {N}:redisson_options,
a local cached map's redisson__cache_updates_log:{N} and {N}:disabled-keys,
an id generator's {N}:allocation and a Bloom filter's {N}:config are folded
into their object too. A set cache is a zset whose every score is an expiry
time in ms (ten years past to a hundred ahead) or Redisson's no-TTL score.`

const lsExamples = `  redisson ls
  redisson ls 'orders:*' --held
  redisson ls --kind semaphore --json | jq '.objects[].name'
  redisson ls --cluster --redis redis://10.0.0.1:7000 --max-keys 1000000
  redisson ls --watch 'deploy:*'`

// Object is one line of ls.
type Object struct {
	Name         string               `json:"name"`
	Kind         string               `json:"kind"`
	Type         string               `json:"type"`
	State        string               `json:"state"`
	Held         bool                 `json:"held"`
	Holders      []objinfo.Holder     `json:"holders"`
	Value        *int64               `json:"value"`
	Queue        int64                `json:"queue"`
	Acquired     *int64               `json:"acquired"`
	Expired      *int64               `json:"expired"`
	RateLimiter  *objinfo.RateLimiter `json:"rate_limiter"`
	FencingToken *int64               `json:"fencing_token"`
	Size         *int64               `json:"size"`
	TTLms        int64                `json:"ttl_ms"`
	Waiters      int64                `json:"waiters"`
	// Waiting counts the goroutines the waiting clients' records list;
	// WaiterConnections the subscribed connections no record accounts for.
	Waiting           int64    `json:"waiting"`
	WaiterConnections int64    `json:"waiter_connections"`
	Keys              []string `json:"keys"`
	Alternatives      []string `json:"alternatives"`
	// Cache: a cache's, counter's or probabilistic object's figures.
	Cache *objinfo.CacheStats `json:"cache"`

	reading uint64
}

// Reading tells a Scanner's readings apart: two listings' objects of one
// name with the same non-zero Reading are one reading (its TTL apart,
// which counts down); 0 for an object List read.
func (o *Object) Reading() uint64 { return o.reading }

// Result is what ls prints with --json.
type Result struct {
	Pattern     string   `json:"pattern"`
	Objects     []Object `json:"objects"`
	ScannedKeys int      `json:"scanned_keys"`
	MaxKeys     int      `json:"max_keys"`
	Truncated   bool     `json:"truncated"`
	// MatchedKeys counts the keys matching the pattern; LeftOut those of
	// them not read (past --max-keys, mattering to nobody); KeptPastLimit
	// those read although past --max-keys.
	MatchedKeys   int `json:"matched_keys"`
	LeftOut       int `json:"left_out_keys"`
	KeptPastLimit int `json:"kept_past_limit"`
}

// Batch is how many objects one round of pipelined look-ups covers.
const Batch = 500

// lsKinds maps the --kind names to inspect's kinds.
var lsKinds = map[string]string{
	"lock": classify.Lock, "fairlock": classify.FairLock, "fair": classify.FairLock, "rwlock": classify.RWLock, "readwritelock": classify.RWLock,
	"group": classify.Group, "groupmultilock": classify.Group, "semaphore": classify.Semaphore, "pes": classify.Expirable,
	"permitexpirablesemaphore": classify.Expirable, "latch": classify.Latch, "countdownlatch": classify.Latch,
	"semaphoreorlatch": classify.SemOrLatch, "atomiclong": classify.AtomicLong, "ratelimiter": classify.RateLimiter,
	"bucket": classify.Bucket, "map": classify.Map, "hash": classify.Map, "none": classify.None, "unknown": "unknown",
	"mapcache": classify.MapCache, "setcache": classify.SetCache, "localcachedmap": classify.LocalCachedMap,
	"atomicdouble": classify.AtomicDouble, "idgenerator": classify.IDGenerator, "bloomfilter": classify.BloomFilter,
	"hyperloglog": classify.HyperLogLog, "hll": classify.HyperLogLog, "adder": classify.Adder,
	"spinlock": classify.SpinLock, "spin": classify.SpinLock, "nonreentrantlock": classify.NonReentrantLock,
	"nonreentrantfairlock": classify.NonReentrantFairLock,
}

// kindKey normalizes a --kind value: lower case, without spaces, dashes
// and underscores.
func kindKey(s string) string {
	return strings.NewReplacer(" ", "", "-", "", "_", "").Replace(strings.ToLower(s))
}

// Options are ls's flags.
type Options struct {
	Pattern   string
	kind      string // inspect's kind, "" for all
	held      bool
	MaxKeys   int
	ScanCount int64
	// Pins are names and globs whose keys are never cut.
	Pins []string
}

// Pins is a repeatable --pin flag.
type Pins []string

func (p *Pins) String() string { return strings.Join(*p, ",") }

// Set adds a pin.
func (p *Pins) Set(v string) error {
	if v == "" {
		return fmt.Errorf("empty --pin")
	}
	*p = append(*p, v)
	return nil
}

// Command runs "redisson ls" with its arguments and returns the exit code.
func Command(args []string) int {
	fs := cliflag.NewFlagSet("ls", "redisson ls [--kind K] [--held] [--json] [--max-keys N] [--watch] [connection flags] [PATTERN]",
		lsDescription, lsExamples)
	var cf conn.Flags
	cf.Register(fs)
	kind := fs.String("kind", "", "list only the objects of this `kind` (see above)")
	held := fs.Bool("held", false, "list only held locks, groups holding a value, permit-expirable semaphores with acquired permits")
	asJSON := fs.Bool("json", false, "print one JSON object (fields above)")
	maxKeys := fs.Int("max-keys", 10000, "read at most this many `keys`, plus those of held, waited-on and pinned objects; a note says how many were left out")
	var pins Pins
	fs.Var(&pins, "pin", "never leave out the keys this `NAME or PATTERN` matches (repeatable)")
	scanCount := fs.Int64("scan-count", 1000, "the COUNT hint of each SCAN")
	watching := fs.Bool("watch", false, "redraw every --interval, marking changed lines with *")
	interval := fs.Duration("interval", time.Second, "--watch: time between drawings")
	pos, code, done := cliflag.ParseFlags(fs, args, true)
	if done {
		return code
	}
	o := Options{Pattern: "*", held: *held, MaxKeys: *maxKeys, ScanCount: *scanCount, Pins: pins}
	switch {
	case len(pos) > 1:
		return cliflag.UsageError(fs, "one PATTERN at most, got %d: %q", len(pos), pos)
	case len(pos) == 1 && pos[0] == "":
		return cliflag.UsageError(fs, "PATTERN must not be empty (leave it out for *)")
	case len(pos) == 1:
		o.Pattern = pos[0]
	}
	if *kind != "" {
		k, ok := lsKinds[kindKey(*kind)]
		if !ok {
			names := make([]string, 0, len(lsKinds))
			for n := range lsKinds {
				names = append(names, n)
			}
			sort.Strings(names)
			return cliflag.UsageError(fs, "unknown --kind %q (want one of %s)", *kind, strings.Join(names, ", "))
		}
		o.kind = k
	}
	if o.MaxKeys < 1 || o.ScanCount < 1 {
		return cliflag.UsageError(fs, "--max-keys and --scan-count must be at least 1")
	}
	if code, ok := watch.CheckInterval(fs, *watching, *interval); !ok {
		return code
	}
	cn, code := conn.ConnectOrExit(context.Background(), fs, &cf, nil)
	if cn == nil {
		return code
	}
	defer cn.Close()
	list := lister(cn.RDB, o, *watching, *interval)
	render := func(ctx context.Context, w io.Writer) error {
		res, err := list(ctx)
		if err != nil {
			return err
		}
		if *asJSON {
			enc := json.NewEncoder(w)
			enc.SetIndent("", "  ")
			return enc.Encode(res)
		}
		printLs(w, res)
		return nil
	}
	// A scan of many keys takes longer than one command: the timeout
	// bounds each batch, not the whole listing.
	budget := 4*cf.Timeout + time.Duration(o.MaxKeys/Batch+1)*cf.Timeout
	if *watching {
		return watch.Loop(fs.Name(), "redisson ls "+cliflag.Visible(o.Pattern), *interval, budget, render)
	}
	ctx, cancel := context.WithTimeout(context.Background(), budget)
	defer cancel()
	if err := render(ctx, os.Stdout); err != nil {
		return cliflag.Errorf(fs.Name(), "%v", err)
	}
	return cliflag.ExitOK
}

// lister is how ls reads: List once, or a Scanner that --watch asks for
// each drawing.
func lister(rdb redis.UniversalClient, o Options, watching bool, interval time.Duration) func(context.Context) (*Result, error) {
	if !watching {
		return func(ctx context.Context) (*Result, error) { return List(ctx, rdb, o) }
	}
	sc := NewScanner(rdb, o)
	sc.Stale = 3 * interval
	return sc.Next
}

// fold groups the keys by the object they belong to: a derived key joins
// its name's object; an unlock latch is no object, and only joins one
// found by another key.
func fold(keys []string, infos map[string]objinfo.KeyInfo) map[string][]string {
	found := map[string][]string{}
	latches := map[string][]string{}
	for _, k := range keys {
		ki := infos[k]
		if ki.Type == "none" || registry.IsKey(k) {
			continue // gone since the scan, or a client's record
		}
		owner, derived := classify.Companion(k, ki.Type)
		latch := ki.Type == "string" && classify.IsUnlockLatch(k)
		switch {
		case latch && derived:
			latches[owner] = append(latches[owner], k)
			continue
		case latch:
			continue
		case !derived:
			owner = k
		}
		found[owner] = append(found[owner], k)
	}
	for owner, ks := range latches {
		if _, ok := found[owner]; ok {
			found[owner] = append(found[owner], ks...)
		}
	}
	return found
}

// List scans, groups and classifies.
func List(ctx context.Context, rdb redis.UniversalClient, o Options) (*Result, error) {
	sc, err := scanKeys(ctx, rdb, o)
	if err != nil {
		return nil, err
	}
	keys := sc.keys
	infos, err := keyInfos(ctx, rdb, keys)
	if err != nil {
		return nil, err
	}
	found := fold(keys, infos)
	for _, n := range sc.names {
		if _, ok := found[n]; !ok {
			found[n] = []string{} // waited on or held: read by name
		}
	}
	var names, unknown []string
	for n := range found {
		names = append(names, n)
		if _, ok := infos[n]; !ok {
			unknown = append(unknown, n)
		}
	}
	sort.Strings(names)
	more, err := keyInfos(ctx, rdb, unknown)
	if err != nil {
		return nil, err
	}
	for k, v := range more {
		infos[k] = v
	}
	res := &Result{Pattern: o.Pattern, Objects: []Object{}, ScannedKeys: len(keys), MaxKeys: o.MaxKeys, Truncated: sc.leftOut > 0,
		MatchedKeys: sc.matched, LeftOut: sc.leftOut, KeptPastLimit: sc.kept}
	var all objinfo.Clients // every record, read once when an object has waiters
	for start := 0; start < len(names); start += Batch {
		end := min(start+Batch, len(names))
		objs, err := classifyBatch(ctx, rdb, names[start:end], infos, &all)
		if err != nil {
			return nil, err
		}
		for i, obj := range objs {
			obj.Keys = found[names[start+i]]
			sort.Strings(obj.Keys)
			if o.keep(obj) {
				res.Objects = append(res.Objects, obj)
			}
		}
	}
	return res, nil
}

// keep applies --kind and --held.
func (o Options) keep(obj Object) bool {
	if o.held && !obj.Held {
		return false
	}
	switch o.kind {
	case "":
		return true
	case "unknown":
		return classify.IsUnknown(obj.Kind)
	case obj.Kind, classify.Base(obj.Kind):
		// --kind lock keeps the spin and non-reentrant locks too, which
		// keep a lock's keys; --kind spinlock keeps only those.
		return true
	case classify.Semaphore, classify.Latch:
		if obj.Kind == classify.SemOrLatch {
			return true
		}
		for _, a := range obj.Alternatives {
			if a == o.kind {
				return true
			}
		}
	}
	return false
}

// keyInfos reads TYPE and PTTL of keys, pipelined.
func keyInfos(ctx context.Context, rdb redis.UniversalClient, keys []string) (map[string]objinfo.KeyInfo, error) {
	out := make(map[string]objinfo.KeyInfo, len(keys))
	const chunk = 1000
	for start := 0; start < len(keys); start += chunk {
		part := keys[start:min(start+chunk, len(keys))]
		types := make([]*redis.StatusCmd, len(part))
		ttls := make([]*redis.DurationCmd, len(part))
		pipe := rdb.Pipeline()
		for i, k := range part {
			types[i] = pipe.Type(ctx, k)
			ttls[i] = pipe.PTTL(ctx, k)
		}
		_, _ = pipe.Exec(ctx)
		for i, k := range part {
			typ, err := types[i].Result()
			if err != nil {
				return nil, fmt.Errorf("TYPE %s: %w", k, err)
			}
			d, err := ttls[i].Result()
			if err != nil {
				return nil, fmt.Errorf("PTTL %s: %w", k, err)
			}
			ki := objinfo.KeyInfo{Key: k, Type: typ, TTLms: -2}
			if typ != "none" {
				ki.TTLms = objinfo.TTLMillis(d)
			}
			out[k] = ki
		}
	}
	return out, nil
}

// lsState is the STATE column.
func lsState(o *Object, fields map[string]string) string {
	var s string
	held := "free"
	if len(o.Holders) > 0 {
		held = "held"
	}
	if o.Cache != nil {
		return objinfo.CacheState(o.Kind, o.Cache)
	}
	switch classify.Base(o.Kind) {
	case classify.Lock:
		s = held
	case classify.FairLock:
		s = fmt.Sprintf("%s, queue %d", held, o.Queue)
	case classify.RWLock:
		s = held
		if len(o.Holders) > 0 {
			s = "held (" + fields["mode"] + ")"
		}
	case classify.Group:
		s = fmt.Sprintf("%d values held", len(o.Holders))
	case classify.Expirable:
		s = fmt.Sprintf("permits %d, acquired %d", *o.Value, *o.Acquired)
		if *o.Expired > 0 {
			s += fmt.Sprintf(", expired %d", *o.Expired)
		}
	case classify.Semaphore:
		s = fmt.Sprintf("permits %d", *o.Value)
	case classify.Latch:
		s = fmt.Sprintf("count %d", *o.Value)
	case classify.AtomicLong, classify.SemOrLatch:
		s = fmt.Sprintf("value %d", *o.Value)
	case classify.RateLimiter:
		s = fmt.Sprintf("rate %d per %s, %s", o.RateLimiter.Rate, objinfo.FmtMillis(o.RateLimiter.IntervalMs), o.RateLimiter.Type)
	case classify.Bucket:
		s = fmt.Sprintf("%d bytes", *o.Size)
	case classify.Map:
		s = "Redis hash"
		if o.Size != nil {
			s = fmt.Sprintf("%d field(s)", *o.Size)
		}
	case classify.None:
		s = "no key"
		if o.Queue > 0 {
			s += fmt.Sprintf(", queue %d", o.Queue)
		}
	default:
		s = "Redis " + o.Type
	}
	if o.FencingToken != nil {
		s += fmt.Sprintf(", token %d", *o.FencingToken)
	}
	return s
}

// LeftOutText says how many keys the cut left out: "12000 of 22004 keys
// matching "*" left out".
func LeftOutText(r *Result) string {
	return fmt.Sprintf("%d of %d keys matching %q left out", r.LeftOut, r.MatchedKeys, r.Pattern)
}

// lsHolders is the HOLDERS column.
func lsHolders(o Object) string {
	if len(o.Holders) == 0 {
		return "-"
	}
	h := o.Holders[0]
	s := fmt.Sprintf("%q ×%d", h.Field, h.Holds) // not a Redisson owner
	if h.ClientID != nil && h.OwnerID != nil {
		s = fmt.Sprintf("%s:%d ×%d", *h.ClientID, *h.OwnerID, h.Holds)
	}
	switch h.Mode {
	case "write":
		s += " write"
	case "permits":
		s = fmt.Sprintf("%s ×%d permits", h.Field, h.Holds)
	}
	if len(o.Holders) > 1 {
		s += fmt.Sprintf(" (+%d more)", len(o.Holders)-1)
	}
	return s
}

func printLs(w io.Writer, r *Result) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tKIND\tSTATE\tHOLDERS\tCLIENT\tHELD\tTTL\tWAITERS")
	for _, o := range r.Objects {
		ttl := "-"
		if o.TTLms >= 0 {
			ttl = objinfo.FmtMillis(o.TTLms)
		}
		client, heldFor := "-", "-"
		if len(o.Holders) > 0 && o.Holders[0].ClientID != nil {
			client, heldFor = objinfo.ClientShort(o.Holders[0].Client), objinfo.HeldForText(o.Holders[0].HeldForMs)
		}
		waiting := objinfo.Waiting{Goroutines: o.Waiting, Connections: o.WaiterConnections}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", cliflag.Visible(o.Name), o.Kind, o.State, lsHolders(o), client, heldFor, ttl, waiting.Text())
	}
	tw.Flush()
	fmt.Fprintf(w, "%d objects, %d keys scanned\n", len(r.Objects), r.ScannedKeys)
	if r.Truncated {
		fmt.Fprintf(w, "note: --max-keys %d cut the scan: %s; held, waited-on and pinned objects are all listed; "+
			"to see the others raise --max-keys, narrow PATTERN, or --pin NAME\n", r.MaxKeys, LeftOutText(r))
	}
}
