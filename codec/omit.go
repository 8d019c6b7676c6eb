package codec

import "reflect"

// omission is a field's `omitempty` / `omitzero` option, with the test
// encoding/json applies for it.
type omission struct {
	empty  bool                     // omitempty: false, 0, a nil pointer or interface, an empty array, slice, map or string
	zero   bool                     // omitzero: the zero value, or IsZero() reports true
	isZero func(reflect.Value) bool // omitzero through the type's IsZero method, if it has one
}

// isZeroer is the method omitzero consults, as encoding/json does.
type isZeroer interface{ IsZero() bool }

var typeIsZeroer = reflect.TypeFor[isZeroer]()

// newOmission reads the options of a field of type t.
func newOmission(t reflect.Type, empty, zero bool) omission {
	o := omission{empty: empty, zero: zero}
	if zero {
		o.isZero = zeroTest(t)
	}
	return o
}

// zeroTest returns the IsZero test of a field of type t, or nil when t has
// no IsZero method; the cases and their nil guards are encoding/json's.
func zeroTest(t reflect.Type) func(reflect.Value) bool {
	switch {
	case t.Kind() == reflect.Interface && t.Implements(typeIsZeroer):
		return func(v reflect.Value) bool {
			return v.IsNil() || (v.Elem().Kind() == reflect.Pointer && v.Elem().IsNil()) ||
				v.Interface().(isZeroer).IsZero()
		}
	case t.Kind() == reflect.Pointer && t.Implements(typeIsZeroer):
		return func(v reflect.Value) bool { return v.IsNil() || v.Interface().(isZeroer).IsZero() }
	case t.Implements(typeIsZeroer):
		return func(v reflect.Value) bool { return v.Interface().(isZeroer).IsZero() }
	case reflect.PointerTo(t).Implements(typeIsZeroer):
		return func(v reflect.Value) bool { return addressable(v).Addr().Interface().(isZeroer).IsZero() }
	}
	return nil
}

// omits reports whether the field value v is left out.
func (o omission) omits(v reflect.Value) bool {
	if o.empty && isEmptyValue(v) {
		return true
	}
	if !o.zero {
		return false
	}
	if o.isZero != nil {
		return o.isZero(v)
	}
	return v.IsZero()
}

// isEmptyValue is encoding/json's test for omitempty: a struct (a
// time.Time too) is never empty, an array only when of length 0.
func isEmptyValue(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64,
		reflect.Interface, reflect.Pointer:
		return v.IsZero()
	}
	return false
}
