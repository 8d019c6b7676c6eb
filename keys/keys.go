// Package keys is the layout of the keys and channels Redisson derives from
// an object's name, for tools that read Redis directly (the command-line
// tool, monitoring, a migration). The object packages name their own
// derived keys too (rlock.ChannelName, fairlock.QueueName, ...); this
// package holds the rules they share and the names no object package
// exports.
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
