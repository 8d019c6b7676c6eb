package hll

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/internal/handle"
	"github.com/goredisson/redisson/source"
)

// object is the HyperLogLog's key, its client, and how its errors name it
// (`hyperloglog "<name>": <op>: <cause>`).
type object struct {
	rdb  redis.UniversalClient
	name string
	err  error           // the constructor's: an empty name, a nil client
	life context.Context // the client's: done with cause ErrClosed by its Close
}

const kind = "hyperloglog"

func newObject(src *source.Source, name string) object {
	o := object{name: name}
	if rt := (*handle.Source)(src).Runtime(); rt != nil {
		o.rdb, o.life = rt.Redis(), rt.Lifetime()
	}
	switch {
	case name == "":
		o.err = fmt.Errorf("%w: the name must not be empty", core.ErrInvalidName)
	case o.rdb == nil:
		o.err = fmt.Errorf("%w: nil Redis client", core.ErrInvalidArgument)
	}
	return o
}

// check returns why a call cannot be made: an invalid handle, a nil ctx, or
// the end of its client (Close).
func (o *object) check(ctx context.Context, op string) error {
	switch {
	case o.err != nil:
		return o.named(op, o.err)
	case ctx == nil:
		return o.named(op, core.ErrNilContext)
	case o.life.Err() != nil:
		return o.named(op, context.Cause(o.life))
	}
	return nil
}

// fail names the object and op in err; a WRONGTYPE reply becomes
// ErrWrongType saying what the key holds.
func (o *object) fail(ctx context.Context, op string, err error) error {
	if err == nil {
		return nil
	}
	var re redis.Error
	if errors.As(err, &re) && strings.HasPrefix(re.Error(), "WRONGTYPE") {
		err = core.WrongTypeError(ctx, o.rdb, o.name, "string")
	}
	return o.named(op, err)
}

func (o *object) named(op string, err error) error {
	if err == nil {
		return nil
	}
	return &core.ObjectError{Kind: kind, Name: o.name, Op: op, Err: err}
}
