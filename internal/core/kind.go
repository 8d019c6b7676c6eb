package core

import (
	"errors"
	"strings"
)

// One name, one kind: Redisson's objects share key names (a lock, a
// read-write lock, a group multi-lock and a rate limiter of one name are all
// the hash <name>) and its scripts never look at what another kind left
// there, so a read lock on a plain lock's hash, say, succeeds and leaves a
// hash two objects think they own. Our acquire and set-up scripts refuse,
// before they write anything, a hash that another kind owns, with an error
// reply of our own: WRONGKIND <what is there> <what the script is>. The
// tokens are the Kind* constants; Script.wrap turns the reply into a
// *KindError, which wraps ErrWrongType.
//
// What a hash holds is read from its fields, which every kind writes in a
// shape of its own: a read-write lock has "mode"; a rate limiter "rate"; a
// group multi-lock fields "<value id>:<owner>:lock_count" (and at least
// three fields per value); a lock (plain, fair or fenced, which cannot be
// told apart and are meant to exclude each other) exactly one field, its
// holder. Strings (semaphore, latch, atomic long, the permit-expirable
// semaphore's count) are all bare integers and are not told apart.

// The kinds a WRONGKIND reply names, as the scripts spell them.
const (
	KindLock        = "lock"        // a plain lock: RLock; also a fair or fenced lock's hash
	KindFairLock    = "fairlock"    // a fair lock asking
	KindFencedLock  = "fencedlock"  // a fenced lock asking
	KindRWLock      = "rwlock"      // a read-write lock (its read or write side)
	KindGroup       = "group"       // a group multi-lock (RedissonFasterMultiLock)
	KindRateLimiter = "ratelimiter" // a rate limiter's config
	KindHash        = "hash"        // a hash none of the above wrote
)

// wrongKindPrefix starts the scripts' refusal reply. Redis has no error
// code WRONGKIND, so no reply of its own is taken for one.
const wrongKindPrefix = "WRONGKIND "

// kindWords are the kinds as an error says them.
var kindWords = map[string]string{
	KindLock:        "a lock",
	KindFairLock:    "a fair lock",
	KindFencedLock:  "a fenced lock",
	KindRWLock:      "a read-write lock",
	KindGroup:       "a group multi-lock",
	KindRateLimiter: "a rate limiter",
	KindHash:        "a hash of another kind",
}

// KindError reports that an object's key is owned by another kind of
// object: nothing was written. It wraps ErrWrongType.
type KindError struct {
	Holds string // what the key holds, e.g. "a read-write lock"
	Want  string // what the caller is, e.g. "a lock"
}

func (e *KindError) Error() string { return "key holds " + e.Holds + ", not " + e.Want }

// Unwrap returns ErrWrongType.
func (e *KindError) Unwrap() error { return ErrWrongType }

// IsKindError reports whether err is (or wraps) a *KindError: it already
// says what the key holds, so a WRONGTYPE handler must leave it alone.
func IsKindError(err error) bool {
	var ke *KindError
	return errors.As(err, &ke)
}

// kindError turns a WRONGKIND reply into a *KindError; nil for any other
// message.
func kindError(msg string) error {
	rest, ok := strings.CutPrefix(msg, wrongKindPrefix)
	if !ok {
		return nil
	}
	f := strings.Fields(rest)
	if len(f) < 2 {
		return nil
	}
	return WrongKind(f[0], f[1])
}

// WrongKind returns the error for a key holding kind holds that a kind
// want asked for (Kind* constants), for a refusal made on the Go side.
func WrongKind(holds, want string) *KindError {
	return &KindError{Holds: kindWord(holds), Want: kindWord(want)}
}

// HashKind says which kind of object a hash with these fields belongs to,
// as the scripts' refuse_hash fragment (internal/lua) does in Lua (for a
// hash read whole on the Go side).
func HashKind(fields map[string]string) string {
	if _, ok := fields["mode"]; ok {
		return KindRWLock
	}
	if _, ok := fields["rate"]; ok {
		return KindRateLimiter
	}
	if len(fields) == 1 {
		return KindLock
	}
	for f := range fields {
		if strings.HasSuffix(f, ":lock_count") {
			return KindGroup
		}
	}
	return KindHash
}

func kindWord(token string) string {
	if w, ok := kindWords[token]; ok {
		return w
	}
	return "a " + token
}
