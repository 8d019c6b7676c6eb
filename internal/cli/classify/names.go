package classify

import (
	"regexp"
	"strings"

	"github.com/goredisson/redisson/keys"
)

var (
	reUnlockLatch = regexp.MustCompile(`^redisson_unlock_latch:(.+):[0-9a-f]{32}$`)
	reReadTimeout = regexp.MustCompile(`^(.+):[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}:-?[0-9]+:rwlock_timeout:[0-9]+$`)
	reRateClient  = regexp.MustCompile(`^(.+):(value|permits):[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)
)

// IsUnlockLatch reports an unlock latch's key by its name:
// redisson_unlock_latch:{N}:<32 hex digits>.
func IsUnlockLatch(key string) bool {
	return reUnlockLatch.MatchString(key)
}

// Companion returns the name of the object a key belongs to when the key
// is one Redisson derives from a name and holds the Redis type Redisson
// gives it: a fair lock's queue and timeout, a fencing token, an unlock
// latch, a read hold's timeout, a rate limiter's value and permits, a
// permit-expirable semaphore's timeout, a map cache's zsets and options,
// a local cached map's updates log and disabled keys, an id generator's
// allocation, a Bloom filter's config.
func Companion(key, typ string) (string, bool) {
	if n, ok := cacheCompanion(key, typ); ok {
		return n, true
	}
	for _, p := range []struct{ prefix, typ string }{
		{"redisson_lock_queue:", "list"},
		{"redisson_lock_timeout:", "zset"},
		{"redisson_lock_token:", "string"},
	} {
		if rest, ok := strings.CutPrefix(key, p.prefix); ok && typ == p.typ {
			return keys.Untag(rest)
		}
	}
	var m []string
	switch typ {
	case "string":
		if m = reUnlockLatch.FindStringSubmatch(key); m != nil {
			return keys.Untag(m[1])
		}
		if m = reReadTimeout.FindStringSubmatch(key); m != nil {
			return keys.Untag(m[1])
		}
		if m = reRateClient.FindStringSubmatch(key); m != nil && m[2] == "value" {
			return keys.Untag(m[1])
		}
		if w, ok := strings.CutSuffix(key, ":value"); ok {
			return keys.Untag(w)
		}
	case "zset":
		if m = reRateClient.FindStringSubmatch(key); m != nil && m[2] == "permits" {
			return keys.Untag(m[1])
		}
		for _, s := range []string{":timeout", ":permits"} {
			if w, ok := strings.CutSuffix(key, s); ok {
				return keys.Untag(w)
			}
		}
	}
	return "", false
}
