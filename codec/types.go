package codec

import (
	"fmt"
	"reflect"
	"strings"
	"sync"
)

// Types maps Go types to the Java classes JsonJackson and MsgPackJackson
// write as type information, and back. Register every struct a codec
// encodes (also nested ones) and every string type that stands for a Java
// enum. A Types is safe for concurrent use; register before sharing it.
type Types struct {
	mu     sync.RWMutex
	byType map[reflect.Type]string
	byName map[string]reflect.Type
}

// NewTypes returns an empty registry.
func NewTypes() *Types {
	return &Types{byType: map[reflect.Type]string{}, byName: map[string]reflect.Type{}}
}

// Register declares that Go values of sample's type (a struct, or a string
// type standing for a Java enum; a pointer is dereferenced) are Java objects
// of class javaClass, the fully qualified name Java's Class.getName returns
// (nested classes with '$': "com.example.Outer$Inner"). Registering the same
// pair again is a no-op; giving a type or a class a second meaning is an
// error, as is a class of java.lang, java.util, java.math or an array class,
// or a Go type with a built-in mapping (time.Time, big.Int, big.Float,
// Decimal), which the codecs map themselves. A type with its own
// MarshalJSON or MarshalText may be registered: the class is then written
// with the JSON or text it gives.
func (t *Types) Register(javaClass string, sample any) error {
	rt := reflect.TypeOf(sample)
	for rt != nil && rt.Kind() == reflect.Pointer {
		rt = rt.Elem()
	}
	switch {
	case rt == nil:
		return fmt.Errorf("codec: Register(%q): nil sample", javaClass)
	case javaClass == "" || strings.ContainsAny(javaClass, " \t\r\n\"") || reserved(javaClass):
		return fmt.Errorf("codec: Register: invalid or reserved Java class name %q", javaClass)
	case rt.Kind() != reflect.Struct && rt.Kind() != reflect.String:
		return fmt.Errorf("codec: Register(%q): %s is not a struct or string type", javaClass, rt)
	case rt.Kind() == reflect.String && rt.PkgPath() == "":
		return fmt.Errorf("codec: Register(%q): %s is not a named string type", javaClass, rt)
	case isBuiltin(rt):
		return fmt.Errorf("codec: Register(%q): %s has a built-in Java class (see the package documentation)", javaClass, rt)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if old, ok := t.byType[rt]; ok && old != javaClass {
		return fmt.Errorf("codec: Register(%q): %s is already registered as %q", javaClass, rt, old)
	}
	if old, ok := t.byName[javaClass]; ok && old != rt {
		return fmt.Errorf("codec: Register(%q): the class is already registered for %s", javaClass, old)
	}
	t.byType[rt] = javaClass
	t.byName[javaClass] = rt
	return nil
}

// MustRegister is Register that panics on error, for package initialisation.
func (t *Types) MustRegister(javaClass string, sample any) *Types {
	if err := t.Register(javaClass, sample); err != nil {
		panic(err)
	}
	return t
}

// ClassOf returns the Java class registered for the Go type of v.
func (t *Types) ClassOf(v any) (string, bool) {
	rt := reflect.TypeOf(v)
	for rt != nil && rt.Kind() == reflect.Pointer {
		rt = rt.Elem()
	}
	return t.class(rt)
}

func (t *Types) class(rt reflect.Type) (string, bool) {
	if t == nil || rt == nil {
		return "", false
	}
	t.mu.RLock()
	defer t.mu.RUnlock()
	name, ok := t.byType[rt]
	return name, ok
}

func (t *Types) lookup(name string) (reflect.Type, bool) {
	if t == nil {
		return nil, false
	}
	t.mu.RLock()
	defer t.mu.RUnlock()
	rt, ok := t.byName[name]
	return rt, ok
}

// reserved reports whether the codec gives the class a meaning of its own.
func reserved(class string) bool {
	for _, p := range []string{"java.lang.", "java.util.", "java.math.", "["} {
		if strings.HasPrefix(class, p) {
			return true
		}
	}
	return false
}
