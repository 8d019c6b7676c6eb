package value

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/internal/handle"
	"github.com/goredisson/redisson/source"
)

// object is what every value handle has: its key, its client, and how its
// errors name it (`<kind> "<name>": <op>: <cause>`).
type object struct {
	kind string // "bucket", "atomic long"
	rdb  redis.UniversalClient
	name string
	err  error           // the constructor's: an empty name, a nil client or codec
	life context.Context // the client's: done with cause ErrClosed by its Close
}

func newObject(kind string, src *source.Source, name string) object {
	o := object{kind: kind, name: name}
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
	if o.err != nil {
		return o.named(op, o.err)
	}
	if ctx == nil {
		return o.named(op, core.ErrNilContext)
	}
	if o.life.Err() != nil {
		return o.named(op, context.Cause(o.life))
	}
	return nil
}

// fail names the object and op in err. A WRONGTYPE reply becomes
// ErrWrongType saying what the key holds (one TYPE, on this error path
// only): the user learns what is in the way, not Redis' generic text.
func (o *object) fail(ctx context.Context, op string, err error) error {
	if err == nil {
		return nil
	}
	var re redis.Error
	if ctx != nil && errors.As(err, &re) && strings.HasPrefix(re.Error(), "WRONGTYPE") {
		err = core.WrongTypeError(ctx, o.rdb, o.name, "string")
	}
	return o.named(op, err)
}

// named names the object and op in err, asking Redis nothing: for errors
// found before anything is sent.
func (o *object) named(op string, err error) error {
	if err == nil {
		return nil
	}
	return &core.ObjectError{Kind: o.kind, Name: o.name, Op: op, Err: err}
}

// boolResult returns ok, or false and the object's error.
func (o *object) boolResult(ctx context.Context, ok bool, op string, err error) (bool, error) {
	if err != nil {
		return false, o.fail(ctx, op, err)
	}
	return ok, nil
}

// delete is Delete of either kind (DEL).
func (o *object) delete(ctx context.Context) (bool, error) {
	const op = "delete"
	if err := o.check(ctx, op); err != nil {
		return false, err
	}
	n, err := o.rdb.Del(ctx, o.name).Result()
	return o.boolResult(ctx, n == 1, op, err)
}

// remainTTL is RemainTTL of either kind.
func (o *object) remainTTL(ctx context.Context) (time.Duration, error) {
	const op = "remain TTL"
	if err := o.check(ctx, op); err != nil {
		return 0, err
	}
	d, err := o.rdb.PTTL(ctx, o.name).Result()
	if err != nil {
		return 0, o.fail(ctx, op, err)
	}
	return d, nil
}
