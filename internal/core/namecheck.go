package core

import (
	"fmt"

	"github.com/goredisson/redisson/internal/slot"
)

// One name, every deployment (issue 33). Redisson derives an object's other
// keys and channels from its name (prefixName / suffixName, naming.go) and
// passes them to one script with the name itself, which a Redis Cluster runs
// only when every key is in one slot. The derivation adds a hash tag only to
// a name without '{', so a name with a '}' but no '{' ("x}y": the tag of
// "{x}y}" is "x"), or with a '{' but no non-empty tag after it ("x{",
// "a{}b": the whole, longer, derived key is hashed), puts the name and what
// is derived from it in different slots. Redisson accepts such names and its
// scripts fail with CROSSSLOT on a cluster; a single node never checks. We
// refuse them when the handle is made, on every deployment, so that a name
// that works in development works in production.
//
// The test is on what Redis hashes, not on the slot numbers: a derived key
// that hashes the same tag as the name shares its slot whatever suffix
// (client id, owner field, request id) follows, while two different tags
// that happen to share a slot would not for another suffix.

// CheckName returns nil when name can name an object whose derived keys and
// channels are derived: name is not empty and Redis Cluster hashes each of
// derived by the same part as name. Otherwise it returns an error wrapping
// ErrInvalidName that says why.
func CheckName(name string, derived ...string) error {
	if name == "" {
		return fmt.Errorf("%w: the name must not be empty", ErrInvalidName)
	}
	tag := slot.Tag(name)
	for _, d := range derived {
		if dt := slot.Tag(d); dt != tag {
			return fmt.Errorf("%w: a Redis Cluster hashes %s but %s, derived from it as Redisson derives it, "+
				"so the two are not in one slot and the object's scripts would fail there with CROSSSLOT; "+
				"use a name without '{' and '}', or one with a non-empty hash tag such as \"{app}:x\"",
				ErrInvalidName, hashed(name, tag), hashed(d, dt))
		}
	}
	return nil
}

// hashed says what Redis Cluster hashes of key, whose Tag is tag.
func hashed(key, tag string) string {
	if key == tag {
		return fmt.Sprintf("%q whole", key)
	}
	return fmt.Sprintf("%q by its tag %q", key, tag)
}

// HasHashTag reports whether Redis Cluster hashes only a non-empty {tag}
// inside name rather than the whole name.
func HasHashTag(name string) bool { return slot.Tag(name) != name }
