package value

import (
	"context"
	"time"

	"github.com/goredisson/redisson/internal/objbase"
	"github.com/goredisson/redisson/source"
)

// object is what every value handle has: its base (key, client, how its
// errors name it: `<kind> "<name>": <op>: <cause>`) and the calls every
// kind makes the same way.
type object struct {
	base objbase.Base
}

// newObject returns the object of a value of kind ("bucket", "atomic
// long"): its key holds a string.
func newObject(kind string, src *source.Source, name string) object {
	return object{base: objbase.New(objbase.Kind{Name: kind, Type: "string"}, src, name)}
}

// boolResult returns ok, or false and the object's error.
func (o *object) boolResult(ctx context.Context, ok bool, op string, err error) (bool, error) {
	if err != nil {
		return false, o.base.Fail(ctx, op, err)
	}
	return ok, nil
}

// delete is Delete of either kind (DEL).
func (o *object) delete(ctx context.Context) (bool, error) {
	const op = "delete"
	if err := o.base.Check(ctx, op); err != nil {
		return false, err
	}
	n, err := o.base.Redis().Del(ctx, o.base.Name()).Result()
	return o.boolResult(ctx, n == 1, op, err)
}

// remainTTL is RemainTTL of either kind.
func (o *object) remainTTL(ctx context.Context) (time.Duration, error) {
	const op = "remain TTL"
	if err := o.base.Check(ctx, op); err != nil {
		return 0, err
	}
	d, err := o.base.Redis().PTTL(ctx, o.base.Name()).Result()
	if err != nil {
		return 0, o.base.Fail(ctx, op, err)
	}
	return d, nil
}
