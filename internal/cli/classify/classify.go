// Package classify is the one place that tells what kind of Redisson object
// a key holds, from its Redis type, its contents and the shape of its
// name. ls, inspect, the dashboard and /metrics all name kinds through it.
//
// Readers gather Facts about a name (each the way it reads Redis: inspect
// one name at a time, ls in pipelined batches) and ask Of for the kind;
// the waiters on the kind's Channels then settle an integer string's kind
// (Resolve). Companion folds the keys Redisson derives from a name into
// the name's object.
package classify

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/goredisson/redisson/keys"
)

// The kinds, as ls and inspect print them.
const (
	None        = "none"
	Lock        = "lock"
	FairLock    = "fair lock"
	RWLock      = "read-write lock"
	Group       = "group multi-lock"
	Expirable   = "permit-expirable semaphore"
	SemOrLatch  = "semaphore or latch"
	Semaphore   = "semaphore"
	Latch       = "count-down latch"
	AtomicLong  = "atomiclong"
	Bucket      = "bucket"
	RateLimiter = "rate limiter"
	// Map is a hash of no lock's shape: a Redisson map, or any other hash.
	Map = "map"
	// UnlockLatch is the short-lived key an unlock leaves its result in
	// for a retry: part of a lock, not an object of its own.
	UnlockLatch = "unlock latch"
	// SpinLock and NonReentrantLock keep the plain lock's hash, and
	// NonReentrantFairLock the fair lock's keys: only the holders'
	// registration records tell them apart (Refine).
	SpinLock             = "spin lock"
	NonReentrantLock     = "non-reentrant lock"
	NonReentrantFairLock = "non-reentrant fair lock"
)

// Unknown is the kind of a key no Redisson lock or synchronizer makes.
func Unknown(redisType string) string { return "unknown (" + redisType + ")" }

// IsUnknown reports a kind made by Unknown.
func IsUnknown(kind string) bool { return strings.HasPrefix(kind, "unknown (") }

// Names are the keys and channels Redisson derives from a name.
type Names struct {
	LockChan, RWChan, SemChan, LatchChan string
	Queue, Timeout, PESTimeout, Token    string
	// Cache are the names of caches, counters and probabilistic objects.
	Cache CacheNames
}

// Derive returns the derived names of name.
func Derive(name string) Names {
	return Names{
		LockChan:   keys.LockChannel(name),
		RWChan:     keys.ReadWriteLockChannel(name),
		SemChan:    keys.SemaphoreChannel(name),
		LatchChan:  keys.LatchChannel(name),
		Queue:      keys.FairLockQueue(name),
		Timeout:    keys.FairLockTimeout(name),
		PESTimeout: keys.ExpirableSemaphoreTimeout(name),
		Token:      keys.FencedLockToken(name),
		Cache:      DeriveCaches(name),
	}
}

// Facts are what a reader found under a name and beside it.
type Facts struct {
	// Type is the Redis TYPE of the name's key.
	Type string
	// Fields are a hash's fields; Partial when only some were read (a
	// hash too big to read whole: only mode, rate, interval, type and
	// keepAliveTime).
	Fields  map[string]string
	Partial bool
	// FairKeys: the fair lock's queue or timeout key exists.
	FairKeys bool
	// Value is a string's value; Long when it is longer than Value holds
	// (then not an integer).
	Value string
	Long  bool
	// PESTimeout: the permit-expirable semaphore's timeout zset exists.
	PESTimeout bool
	// Token: a fenced lock's token key exists.
	Token bool
	// MapCacheKeys: a map cache's timeout, idle or last-access zset or
	// options hash exists; UpdatesLog: a local cached map's updates log
	// exists.
	MapCacheKeys, UpdatesLog bool
	// Allocation: an id generator's allocation key exists; BloomConfig: a
	// Bloom filter's config hash exists.
	Allocation, BloomConfig bool
	// ZCard is a zset's size, ZTimed how many of its members are scored
	// within SetCacheBounds, ZNoTTL how many NoTTLScore; ZSample the
	// scores of its SampleSize lowest members.
	ZCard, ZTimed, ZNoTTL int64
	ZSample               []float64
}

// HashFields are the fields a reader of a big hash reads: enough for Of.
func HashFields() []string {
	return []string{"mode", "rate", "interval", "type", "keepAliveTime"}
}

// Of is the kind of the object called name, and the value of an integer
// string. SemOrLatch is left for Resolve.
func Of(name string, f Facts) (kind string, value *int64) {
	if IsUnlockLatch(name) && f.Type == "string" {
		return UnlockLatch, nil
	}
	switch f.Type {
	case "hash":
		return hashKind(f), nil
	case "string":
		if k := cacheStringKind(f); k != "" {
			return k, intValue(k, f.Value)
		}
		if f.Long {
			return Bucket, nil
		}
		return stringKind(f.Value, f.PESTimeout)
	case "zset":
		if isSetCache(name, f) {
			return SetCache, nil
		}
	case "none":
		return freeKind(f), nil
	}
	return Unknown(f.Type), nil
}

// freeKind is the kind of a name without a key of its own: a free lock
// whose derived keys remain. A fair lock's queue of waiters whose entries
// went stale, or a fenced lock's token (it outlives every hold), say
// which lock it is.
func freeKind(f Facts) string {
	switch {
	case f.FairKeys:
		return FairLock
	case f.Token:
		return Lock
	}
	return None
}

// Refine is the kind of a lock whose holders' registration records name
// the kind each took it as (heldAs, "fair lock" for a fair lock): a fair
// lock nobody waits for keeps no queue or timeout key, so its hash alone
// reads as a plain lock's, and the spin and non-reentrant locks use the
// plain and fair locks' keys as they are. Other kinds, and records that
// name none of these, leave kind as it is (a Java holder has no record).
func Refine(kind string, heldAs []string) string {
	if kind != Lock && kind != FairLock {
		return kind
	}
	for _, k := range heldAs {
		switch {
		case k == NonReentrantFairLock:
			return k
		case kind == Lock && (k == FairLock || k == SpinLock || k == NonReentrantLock):
			return k
		}
	}
	return kind
}

// Base is the kind whose keys kind keeps: Lock for the spin and
// non-reentrant locks, FairLock for the non-reentrant fair lock, any
// other kind itself. What reads or acts on a lock's keys goes by it.
func Base(kind string) string {
	switch kind {
	case SpinLock, NonReentrantLock:
		return Lock
	case NonReentrantFairLock:
		return FairLock
	}
	return kind
}

// hashKind tells a lock's hash from a read-write lock's, a group's, a rate
// limiter's, and from a plain hash or a Redisson map, which hold other
// fields: a lock's fields are all "<client uuid>:<owner id>" with a count.
// Of a hash too big to read whole, only the read-write lock's mode and
// the rate limiter's config can be told.
func hashKind(f Facts) string {
	switch {
	case isReadWrite(f.Fields, f.Partial):
		return RWLock
	case isRateLimiter(f.Fields):
		return RateLimiter
	case f.MapCacheKeys || !f.Partial && isPacked(f.Fields):
		return MapCache
	case f.UpdatesLog:
		return LocalCachedMap
	case f.Partial:
		return Unknown("hash")
	case isGroup(f.Fields):
		return Group
	case !isLock(f.Fields):
		return Map
	case f.FairKeys:
		return FairLock
	}
	return Lock
}

// isLock: every field is an owner holding a positive count.
func isLock(fields map[string]string) bool {
	for k, v := range fields {
		if _, _, write := ParseOwner(k); write || !ownerField.MatchString(k) || !isCount(v) {
			return false
		}
	}
	return len(fields) > 0
}

// isReadWrite: a mode of read or write, and owners with counts besides
// (a write holder's field ends in ":write"). Of a big hash only the mode
// was read.
func isReadWrite(fields map[string]string, partial bool) bool {
	if m := fields["mode"]; m != "read" && m != "write" {
		return false
	}
	if partial {
		return true
	}
	for k, v := range fields {
		if k != "mode" && (!ownerField.MatchString(k) || !isCount(v)) {
			return false
		}
	}
	return true
}

func isCount(v string) bool {
	n, err := strconv.ParseInt(v, 10, 64)
	return err == nil && n > 0
}

// isRateLimiter reports whether a hash's fields are a rate limiter's config:
// Redisson's scripts need rate, interval and type.
func isRateLimiter(fields map[string]string) bool {
	_, r := fields["rate"]
	_, i := fields["interval"]
	_, t := fields["type"]
	return r && i && t
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

// IsGroupValue reports whether field f (value v) of a group's hash is a
// held value, and returns its expire_time and lock_count fields.
func IsGroupValue(fields map[string]string, f, v string) (expire, count string, ok bool) {
	expire, ok = fields[f+":"+v+":expire_time"]
	if !ok || !ownerField.MatchString(v) {
		return "", "", false
	}
	return expire, fields[f+":"+v+":lock_count"], true
}

// stringKind is the kind of a string holding v: a bucket unless it is an
// integer, then a permit-expirable semaphore when its timeout zset exists
// (pes), else SemOrLatch, which Resolve settles.
func stringKind(v string, pes bool) (string, *int64) {
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	switch {
	case err != nil:
		return Bucket, nil
	case pes:
		return Expirable, &n
	}
	return SemOrLatch, &n
}

// Channels are the channels the waiters of a kind listen on (a fair lock's
// waiters also on one channel each); nil for None or an unknown kind,
// whose reader may look at every Candidate.
func Channels(kind string, d Names) []string {
	switch kind {
	case RWLock:
		return []string{d.RWChan}
	case Lock, FairLock, Group:
		return []string{d.LockChan}
	case Expirable:
		return []string{d.SemChan}
	case SemOrLatch:
		return []string{d.SemChan, d.LatchChan}
	case RateLimiter, Bucket, Map, UnlockLatch, MapCache, SetCache, LocalCachedMap, AtomicDouble, IDGenerator,
		BloomFilter, HyperLogLog, Adder:
		return []string{} // no pub/sub
	}
	return nil
}

// Candidates are every channel a waiter on the name could listen on.
func Candidates(d Names) []string {
	return []string{d.LockChan, d.RWChan, d.SemChan, d.LatchChan}
}

// Resolve settles SemOrLatch from the waiters of its channels: a semaphore
// or a latch when only that channel has some, an atomic long (with the
// alternatives) when neither has. Other kinds are returned as they are.
func Resolve(kind string, waiters func(channel string) int64, d Names) (string, []string) {
	if kind != SemOrLatch {
		return kind, []string{}
	}
	sem, latch := waiters(d.SemChan), waiters(d.LatchChan)
	switch {
	case sem > 0 && latch == 0:
		return Semaphore, []string{}
	case latch > 0 && sem == 0:
		return Latch, []string{}
	case sem == 0 && latch == 0:
		// Nothing but an integer: Redis cannot say more.
		return AtomicLong, []string{Semaphore, Latch, Bucket}
	}
	return kind, []string{}
}

// HasHolders reports the kinds whose hash fields are holders.
func HasHolders(kind string) bool {
	return kind == Lock || kind == FairLock || kind == RWLock
}

// ownerField is Redisson's "<36-char client uuid>:<thread/owner id>", with
// ":write" for a write lock holder.
var ownerField = regexp.MustCompile(`^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}):(-?[0-9]+)(:write)?$`)

// ParseOwner splits a holder's field into its client id and owner id, and
// whether it is a write holder's; nil ids for a field of another shape.
func ParseOwner(field string) (client *string, owner *int64, write bool) {
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
