// Package objbase is the one base of the data objects' handles (values, bit set,
// HyperLogLog, Bloom filter, collections, map cache, set cache): the
// checks made when a handle is built (an empty name, no client, a nil
// codec), the checks made before each call (an invalid handle, a nil or
// done context, a closed client), and the one shape of their errors,
// `<kind> "<name>": <op>: <cause>` (errs.ObjectError).
//
// A public type holds a Base under an unexported field name, never
// embedded: Base's methods are exported for the object packages, and
// embedding would promote them into the public type's method set (and
// show *core.Runtime to users).
package objbase

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson/codec"
	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/internal/handle"
	"github.com/goredisson/redisson/source"
)

// Kind is what an object package says once of every handle it makes.
type Kind struct {
	// Name names the object in its errors: "bit set", "map cache".
	Name string
	// Type is the Redis type the object's key holds ("string", "hash",
	// "zset"): a WRONGTYPE reply becomes ErrWrongType saying what the key
	// holds instead.
	Type string
	// NoClient is the cause's words for a handle made without a client;
	// empty for "nil Redis client". Packages whose users reach them
	// through a root constructor say which.
	NoClient string
}

// Base is a handle's name, its client's runtime, and the error it was
// made with, if any: every call of a handle made wrong fails with it.
type Base struct {
	kind Kind
	rt   *core.Runtime
	name string
	err  error
}

// New returns the base of a handle of kind k called name on src's client:
// an empty name gives ErrInvalidName, a nil or zero src ErrInvalidArgument.
func New(k Kind, src *source.Source, name string) Base {
	b := Base{kind: k, rt: (*handle.Source)(src).Runtime(), name: name}
	switch {
	case name == "":
		b.err = fmt.Errorf("%w: the name must not be empty", core.ErrInvalidName)
	case b.rt == nil || b.rt.Redis() == nil:
		words := k.NoClient
		if words == "" {
			words = "nil Redis client"
		}
		b.err = fmt.Errorf("%w: %s", core.ErrInvalidArgument, words)
	}
	return b
}

// NeedCodec refuses a nil codec cd (ErrInvalidArgument, "nil <what>"),
// unless the handle is refused already: a handle reports its first fault.
func (b *Base) NeedCodec(cd codec.Codec, what string) {
	if b.err == nil && cd == nil {
		b.err = fmt.Errorf("%w: nil %s", core.ErrInvalidArgument, what)
	}
}

// Derives refuses the name when a key or channel derived from it (as
// Redisson derives it) hashes to another Redis Cluster slot than the name:
// the object's scripts would fail there with CROSSSLOT (ErrInvalidName,
// core.CheckName). A handle refused already keeps its first fault.
func (b *Base) Derives(derived ...string) {
	if b.err == nil {
		b.err = core.CheckName(b.name, derived...)
	}
}

// Name returns the object's name.
func (b *Base) Name() string { return b.name }

// Runtime returns the client's runtime; nil for a handle made without one.
func (b *Base) Runtime() *core.Runtime { return b.rt }

// Redis returns the client's go-redis client. Only for a valid handle:
// one that passed Check.
func (b *Base) Redis() redis.UniversalClient { return b.rt.Redis() }

// Err returns the error the handle was made with; nil for a valid one.
func (b *Base) Err() error { return b.err }

// Check returns why call op cannot be made: an invalid handle, a nil
// context, a closed client, a done context. Nothing is sent then.
func (b *Base) Check(ctx context.Context, op string) error {
	if b.err != nil {
		return b.Named(op, b.err)
	}
	if err := b.rt.Check(ctx); err != nil {
		return b.Named(op, err)
	}
	return nil
}

// Fail names the object and op in err. A WRONGTYPE reply (or a script's,
// which comes as ErrWrongType itself) becomes ErrWrongType saying what
// the key holds, one TYPE asked on this error path only. An error that
// only wraps ErrWrongType already has words of its own and is kept.
func (b *Base) Fail(ctx context.Context, op string, err error) error {
	if err == nil {
		return nil
	}
	if ctx != nil && (err == core.ErrWrongType || IsWrongType(err)) {
		err = core.WrongTypeError(ctx, b.Redis(), b.name, b.kind.Type)
	}
	return b.Named(op, err)
}

// Named names the object and op in err, asking Redis nothing: for errors
// found before anything is sent.
func (b *Base) Named(op string, err error) error {
	if err == nil {
		return nil
	}
	return &core.ObjectError{Kind: b.kind.Name, Name: b.name, Op: op, Err: err}
}

// Invalid returns an ErrInvalidArgument error of op, its cause worded by
// format and a.
func (b *Base) Invalid(op, format string, a ...any) error {
	return b.Named(op, fmt.Errorf("%w: "+format, append([]any{core.ErrInvalidArgument}, a...)...))
}

// Encode returns v's bytes with cd, refusing Java's null (IsNull) as
// Redisson does; what names v in that error ("key", "member").
func (b *Base) Encode(op, what string, cd codec.Codec, v any) ([]byte, error) {
	if IsNull(v) {
		return nil, b.Invalid(op, "the %s must not be nil (Redisson refuses null)", what)
	}
	data, err := cd.Encode(v)
	if err != nil {
		return nil, b.Named(op, err)
	}
	return data, nil
}

// IsWrongType reports whether err is Redis' WRONGTYPE reply.
func IsWrongType(err error) bool {
	var re redis.Error
	return errors.As(err, &re) && strings.HasPrefix(re.Error(), "WRONGTYPE")
}

// IsNull reports whether v is Java's null: a nil pointer, interface, map,
// slice, channel or function.
func IsNull(v any) bool {
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
