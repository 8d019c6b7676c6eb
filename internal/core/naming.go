package core

import "strings"

// Key naming follows Redisson's RedissonObject.prefixName / suffixName: the
// raw name is wrapped in a hash tag only when it contains no '{' at all, so
// that every derived key and channel lands in the slot of the name itself,
// unless the name has a '}' without a '{' before it, or a '{' without a
// non-empty tag: CheckName (namecheck.go) refuses those.

// Tagged returns the name as Redisson embeds it in derived keys: "{name}"
// when name contains no '{', the name unchanged otherwise.
func Tagged(name string) string {
	if strings.IndexByte(name, '{') >= 0 {
		return name
	}
	return "{" + name + "}"
}

// PrefixName returns prefix + ":" + Tagged(name).
func PrefixName(prefix, name string) string {
	return prefix + ":" + Tagged(name)
}

// SuffixName returns Tagged(name) + ":" + suffix.
func SuffixName(name, suffix string) string {
	return Tagged(name) + ":" + suffix
}

// OwnerField returns the hash field Redisson stores for a holder:
// "<client id>:<owner id>".
func OwnerField(clientID string, owner int64) string {
	return clientID + ":" + itoa(owner)
}

func itoa(v int64) string {
	var buf [20]byte
	i := len(buf)
	neg := v < 0
	u := uint64(v)
	if neg {
		u = uint64(-v)
	}
	for {
		i--
		buf[i] = byte('0' + u%10)
		u /= 10
		if u == 0 {
			break
		}
	}
	if neg {
		i--
		buf[i] = '-'
	}
	return string(buf[i:])
}

// ValidateName rejects names no Redis object can have: the empty name.
// CheckName also checks the names derived from it.
func ValidateName(name string) error {
	if name == "" {
		return ErrInvalidName
	}
	return nil
}
