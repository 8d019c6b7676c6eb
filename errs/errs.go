// Package errs declares ObjectError, the error every call of a Redisson
// object returns. The root package re-exports it as redisson.ObjectError;
// it lives in a package of its own so that the object packages and tools
// such as the command-line tool can name it without importing the root.
package errs

import (
	"strconv"
	"strings"
)

// ObjectError is the error every call of an object returns: it names the
// object once and the operation, then the cause, as
// `<kind> "<name>": <op>: <cause>`. Unwrap gives the cause (a sentinel such
// as redisson.ErrWrongType, a context error, a network error).
type ObjectError struct {
	// Kind is the object's kind as the messages name it ("lock", "fair lock").
	Kind string
	// Name is the object's name.
	Name string
	// Op is the operation that failed ("lock", "unlock"); empty when the
	// cause speaks for itself.
	Op string
	// Err is the cause.
	Err error
}

func (e *ObjectError) Error() string {
	var b strings.Builder
	b.WriteString(e.Kind)
	b.WriteString(" ")
	b.WriteString(strconv.Quote(e.Name))
	err := error(e)
	// A cause that is already this object's error (a hold's loss cause
	// returned by Unlock) adds its operation, not the name a second time.
	for {
		oe, ok := err.(*ObjectError)
		if !ok || oe.Kind != e.Kind || oe.Name != e.Name {
			break
		}
		if oe.Op != "" {
			b.WriteString(": ")
			b.WriteString(oe.Op)
		}
		err = oe.Err
	}
	if err != nil {
		b.WriteString(": ")
		b.WriteString(err.Error())
	}
	return b.String()
}

// Unwrap returns the cause.
func (e *ObjectError) Unwrap() error { return e.Err }
