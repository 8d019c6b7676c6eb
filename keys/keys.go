// Package keys is the layout of the keys and channels Redisson derives from
// an object's name, for tools that read Redis directly (the command-line
// tool, monitoring, a migration, a test that watches a channel). The
// object packages derive their keys and channels from these functions, so
// a name here is the name the library uses; nothing here changes Redis.
//
// The rules are Redisson's RedissonObject.prefixName and suffixName: the
// name is wrapped in a hash tag when it contains no '{', so that every
// derived key and channel lands in the slot of the name itself.
package keys

import "strings"

// Tagged returns the name as Redisson embeds it in derived keys: "{name}"
// when name contains no '{', the name unchanged otherwise.
func Tagged(name string) string {
	if strings.IndexByte(name, '{') >= 0 {
		return name
	}
	return "{" + name + "}"
}

// Untag inverts Tagged: "{N}" gives N when N holds no brace; a w with a
// '{' elsewhere is a name that was embedded as it is. A w without '{' is
// no tagged name (ok is false).
func Untag(w string) (name string, ok bool) {
	if len(w) > 2 && w[0] == '{' && w[len(w)-1] == '}' && !strings.ContainsAny(w[1:len(w)-1], "{}") {
		return w[1 : len(w)-1], true
	}
	if strings.Contains(w, "{") {
		return w, true
	}
	return "", false
}

// PrefixName returns prefix + ":" + Tagged(name), Redisson's prefixName.
func PrefixName(prefix, name string) string {
	return prefix + ":" + Tagged(name)
}

// SuffixName returns Tagged(name) + ":" + suffix, Redisson's suffixName.
func SuffixName(name, suffix string) string {
	return Tagged(name) + ":" + suffix
}

// LockChannel is the pub/sub channel on which a lock (rlock) and a fenced
// lock (fencedlock) publish their releases; waiters subscribe to it.
func LockChannel(name string) string { return PrefixName("redisson_lock__channel", name) }

// FairLockQueue is the list of a fair lock's waiters, as owner fields
// ("<client id>:<owner id>") in arrival order.
func FairLockQueue(name string) string { return PrefixName("redisson_lock_queue", name) }

// FairLockTimeout is the zset of a fair lock's queued waiters, scored by
// the time (ms since the epoch, by the enqueuing client's clock) after
// which the others skip the waiter as stale.
func FairLockTimeout(name string) string { return PrefixName("redisson_lock_timeout", name) }

// FairLockChannel is the channel on which the fair lock's waiter with
// owner field field ("<client id>:<owner id>") is woken: each waiter has
// its own.
func FairLockChannel(name, field string) string { return LockChannel(name) + ":" + field }

// ReadWriteLockChannel is the channel of a read-write lock's releases.
func ReadWriteLockChannel(name string) string { return PrefixName("redisson_rwlock", name) }

// ReadWriteLockTimeoutPrefix is the prefix of the per-hold timeout keys
// of a read-write lock's reader with owner field field: its k-th
// re-entrant read hold's key is the prefix + ":" + k.
func ReadWriteLockTimeoutPrefix(name, field string) string {
	return SuffixName(name, field) + ":rwlock_timeout"
}

// FencedLockToken is the counter from which a fenced lock draws its
// tokens; it outlives the lock.
func FencedLockToken(name string) string { return PrefixName("redisson_lock_token", name) }

// SemaphoreChannel is the channel of a semaphore's releases, for both a
// plain and a permit-expirable semaphore.
func SemaphoreChannel(name string) string { return PrefixName("redisson_sc", name) }

// LatchChannel is the channel of a count-down latch's zero and new-count
// messages. Unlike the other derived names it always wraps the name in
// braces, even one that has some (Redisson's RedissonCountDownLatch).
func LatchChannel(name string) string { return "redisson_countdownlatch__channel__{" + name + "}" }

// ExpirableSemaphoreTimeout is the zset of a permit-expirable semaphore's
// acquired permits, scored by their expiry.
func ExpirableSemaphoreTimeout(name string) string { return SuffixName(name, "timeout") }

// RateLimiterValue is the string of an OVERALL rate limiter's available
// permits (a PER_CLIENT limiter appends ":<client id>").
func RateLimiterValue(name string) string { return SuffixName(name, "value") }

// RateLimiterPermits is the zset of an OVERALL rate limiter's grants in
// the current window (a PER_CLIENT limiter appends ":<client id>").
func RateLimiterPermits(name string) string { return SuffixName(name, "permits") }

// UnlockLatchPrefix is the prefix of the short-lived keys in which an
// unlock leaves its result for a retry of the same unlock:
// UnlockLatchPrefix(name) + ":" + the request id (32 hex digits).
func UnlockLatchPrefix(name string) string { return PrefixName("redisson_unlock_latch", name) }
