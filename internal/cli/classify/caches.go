package classify

import (
	"encoding/binary"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/goredisson/redisson/keys"
)

// The kinds of Redisson's caches, counters and probabilistic objects.
const (
	MapCache       = "map cache"
	SetCache       = "set cache"
	LocalCachedMap = "local cached map"
	AtomicDouble   = "atomicdouble"
	IDGenerator    = "id generator"
	BloomFilter    = "bloom filter"
	HyperLogLog    = "hyperloglog"
	// Adder is a long or double adder: it keeps no key, only instances
	// subscribed to its topic, each counting locally.
	Adder = "adder"
)

// CacheNames are the keys and channels Redisson derives from the name of
// a cache, counter or probabilistic object.
type CacheNames struct {
	// A map cache's zsets and options hash.
	Timeout, Idle, LastAccess, Options string
	// A map cache's entry event channels.
	Events []string
	// A set cache's expired-entry channel.
	SetExpired string
	// A local cached map's topic (its near caches subscribe), updates log
	// and disabled keys.
	CacheTopic, UpdatesLog, DisabledKeys string
	// An id generator's allocation, a Bloom filter's config hash.
	Allocation, BloomConfig string
	// An adder's topic.
	AdderTopic string
}

// DeriveCaches returns the cache-side derived names of name.
func DeriveCaches(name string) CacheNames {
	ev := func(e string) string { return keys.PrefixName("redisson_map_cache_"+e, name) }
	return CacheNames{
		Timeout:      keys.PrefixName("redisson__timeout__set", name),
		Idle:         keys.PrefixName("redisson__idle__set", name),
		LastAccess:   keys.PrefixName("redisson__map_cache__last_access__set", name),
		Options:      keys.SuffixName(name, "redisson_options"),
		Events:       []string{ev("created"), ev("updated"), ev("removed"), ev("expired")},
		SetExpired:   keys.PrefixName("redisson_set_cache_expired", name),
		CacheTopic:   keys.SuffixName(name, "topic"),
		UpdatesLog:   keys.PrefixName("redisson__cache_updates_log", name),
		DisabledKeys: keys.SuffixName(name, "disabled-keys"),
		Allocation:   keys.SuffixName(name, "allocation"),
		BloomConfig:  keys.SuffixName(name, "config"),
		AdderTopic:   keys.SuffixName(name, "adder-topic"),
	}
}

// MapCacheKeys are the keys whose existence says a hash is a map cache.
func (c CacheNames) MapCacheKeys() []string {
	return []string{c.Timeout, c.Idle, c.LastAccess, c.Options}
}

// NoTTLScore is the score a set cache gives a member without a TTL
// (Redisson's 92233720368547758).
const NoTTLScore = "92233720368547758"

// Set cache scores are expiry times in unix ms: within ten years past
// (an entry nobody cleaned up) and a hundred years ahead.
const (
	setCachePast   = 10 * 365 * 24 * time.Hour
	setCacheFuture = 100 * 365 * 24 * time.Hour
)

// SetCacheBounds are the ZCOUNT bounds of the scores a set cache's
// members may have besides NoTTLScore, at now.
func SetCacheBounds(now time.Time) (lo, hi string) {
	return strconv.FormatInt(now.Add(-setCachePast).UnixMilli(), 10), strconv.FormatInt(now.Add(setCacheFuture).UnixMilli(), 10)
}

// SampleSize is how many of a zset's lowest members a reader reads for
// Facts.ZSample.
const SampleSize = 8

// isSetCache: a zset not named by Redisson for its own use, each of whose
// members is scored as an expiry time or as no expiry, and whose sampled
// scores are whole milliseconds.
func isSetCache(name string, f Facts) bool {
	if f.ZCard == 0 || f.ZTimed+f.ZNoTTL != f.ZCard || strings.HasPrefix(name, "redisson_") {
		return false
	}
	for _, s := range f.ZSample {
		if s != float64(int64(s)) {
			return false
		}
	}
	return true
}

// isPacked reports a hash whose every value is a map cache entry: the max
// idle time (a double), the value's length (a little-endian 64-bit
// integer) and that many bytes, as Redisson's map cache scripts pack it.
func isPacked(fields map[string]string) bool {
	for _, v := range fields {
		if len(v) < 16 || binary.LittleEndian.Uint64([]byte(v[8:16])) != uint64(len(v)-16) {
			return false
		}
	}
	return len(fields) > 0
}

// decimal is what Redis's INCRBYFLOAT writes when the sum is not whole.
var decimal = regexp.MustCompile(`^-?[0-9]*\.[0-9]+$`)

// cacheStringKind is the kind of a string that its companions or contents
// name, or "".
func cacheStringKind(f Facts) string {
	switch {
	case strings.HasPrefix(f.Value, "HYLL"):
		return HyperLogLog
	case f.BloomConfig:
		return BloomFilter
	case f.Allocation && !f.Long:
		return IDGenerator
	case !f.Long && decimal.MatchString(strings.TrimSpace(f.Value)):
		return AtomicDouble
	}
	return ""
}

// Listeners are the channels whose subscribers are not waiters but a
// kind's listeners: a local cached map's near caches, a map or set
// cache's entry listeners, an adder's instances. A hash is asked for its
// topic (a map with near caches is a local cached map) and a name without
// a key for its adder topic.
func Listeners(kind string, c CacheNames) []string {
	switch kind {
	case Map, LocalCachedMap:
		return []string{c.CacheTopic}
	case MapCache:
		return c.Events
	case SetCache:
		return []string{c.SetExpired}
	case None, Adder:
		return []string{c.AdderTopic}
	}
	return []string{}
}

// ResolveListened settles a map with near caches subscribed to its topic
// (a local cached map) and a name without a key whose adder topic has
// subscribers (an adder); other kinds are returned as they are.
func ResolveListened(kind string, subscribers func(channel string) int64, c CacheNames) string {
	switch {
	case kind == Map && subscribers(c.CacheTopic) > 0:
		return LocalCachedMap
	case kind == None && subscribers(c.AdderTopic) > 0:
		return Adder
	}
	return kind
}

// cacheCompanion is the name a key Redisson derives for a cache, counter
// or probabilistic object belongs to.
func cacheCompanion(key, typ string) (string, bool) {
	if typ == "zset" {
		for _, p := range []string{"redisson__timeout__set:", "redisson__idle__set:", "redisson__map_cache__last_access__set:", "redisson__cache_updates_log:"} {
			if rest, ok := strings.CutPrefix(key, p); ok {
				return keys.Untag(rest)
			}
		}
	}
	for _, s := range []struct{ suffix, typ string }{
		{":redisson_options", "hash"}, {":config", "hash"}, {":allocation", "string"}, {":disabled-keys", "zset"},
	} {
		if w, ok := strings.CutSuffix(key, s.suffix); ok && typ == s.typ {
			return keys.Untag(w)
		}
	}
	return "", false
}

// intValue is the value of an id generator's string (the next id);
// nil for other kinds.
func intValue(kind, v string) *int64 {
	if kind != IDGenerator {
		return nil
	}
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil {
		return nil
	}
	return &n
}
