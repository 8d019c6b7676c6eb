package localcache

import (
	"reflect"

	"github.com/goredisson/redisson/internal/objbase"
)

// isNull reports whether v is Java's null (objbase.IsNull). Redisson
// refuses null keys and values before it sends anything.
func isNull(v any) bool { return objbase.IsNull(v) }

// hashable reports whether an interface-typed key can be a Go map key.
func hashable(key any) bool {
	return key != nil && reflect.TypeOf(key).Comparable()
}
