package localcache

import "reflect"

// isNull reports whether v is Java's null: a nil pointer, interface, map,
// slice, channel or function. Redisson refuses null keys and values
// before it sends anything.
func isNull(v any) bool {
	if v == nil {
		return true
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Pointer, reflect.Interface, reflect.Map, reflect.Slice, reflect.Chan, reflect.Func:
		return rv.IsNil()
	}
	return false
}

// hashable reports whether an interface-typed key can be a Go map key.
func hashable(key any) bool {
	return key != nil && reflect.TypeOf(key).Comparable()
}
