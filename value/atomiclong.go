package value

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson/codec"
	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/source"
)

// AtomicLong is Redisson's RAtomicLong: a 64-bit counter stored under the
// key name as a decimal string ("42"), changed with Redis' atomic INCRBY,
// INCR, DECR, GETSET and Redisson's compare-and-set script. A missing key
// counts as 0, as in Java.
type AtomicLong struct {
	object
}

// NewAtomicLong returns the counter called name of src's client
// ((*redisson.Client).AtomicLong). An empty name or a nil or zero src gives
// a handle whose every call fails (ErrInvalidName, ErrInvalidArgument).
func NewAtomicLong(src *source.Source, name string) *AtomicLong {
	return &AtomicLong{object: newObject("atomic long", src, name)}
}

// Name returns the counter's name, which is also its key.
func (a *AtomicLong) Name() string {
	if a == nil {
		return *new(string)
	}
	return a.base.Name()
}

// parse reads a decimal reply; nil (no key) is 0, as Redisson's
// LongReplayConvertor reads it. A string that is not a Java long is
// ErrWrongType, saying what the key held: for GETSET and Redisson's
// get-and-delete script the command has replaced or deleted it by then (Java
// sends the same commands and fails the same way), so the error says so.
func (a *AtomicLong) parse(ctx context.Context, op, s string, err error, after string) (int64, error) {
	if errors.Is(err, redis.Nil) {
		return 0, nil
	}
	if err != nil {
		return 0, a.base.Fail(ctx, op, err)
	}
	var n int64
	if err := codec.Long().Decode([]byte(s), &n); err != nil {
		verb := "holds"
		if after != "" {
			verb = "held"
		}
		return 0, a.base.Fail(ctx, op, fmt.Errorf("%w: the key %s the string %.40q, not a long%s", core.ErrWrongType, verb, s, after))
	}
	return n, nil
}

// counted maps the reply of INCRBY, INCR or DECR: Redis refuses a value
// that is not a decimal int64 ("ERR value is not an integer or out of
// range") and changes nothing, which is ErrWrongType here.
func (a *AtomicLong) counted(ctx context.Context, op string, n int64, err error) (int64, error) {
	var re redis.Error
	if errors.As(err, &re) && strings.Contains(re.Error(), "not an integer") {
		return 0, a.base.Fail(ctx, op, fmt.Errorf("%w: the key holds a string that is not a long", core.ErrWrongType))
	}
	if err != nil {
		return 0, a.base.Fail(ctx, op, err)
	}
	return n, nil
}

// Get returns the value, 0 when the key does not exist (GET).
func (a *AtomicLong) Get(ctx context.Context) (int64, error) {
	if a == nil {
		return *new(int64), core.NilHandle("atomic long", "get")
	}
	if err := a.base.Check(ctx, "get"); err != nil {
		return 0, err
	}
	s, err := a.base.Redis().Get(ctx, a.base.Name()).Result()
	return a.parse(ctx, "get", s, err, "")
}

// Set stores v, removing any TTL (SET).
func (a *AtomicLong) Set(ctx context.Context, v int64) error {
	if a == nil {
		return core.NilHandle("atomic long", "set")
	}
	if err := a.base.Check(ctx, "set"); err != nil {
		return err
	}
	return a.base.Fail(ctx, "set", a.base.Redis().Set(ctx, a.base.Name(), strconv.FormatInt(v, 10), 0).Err())
}

// AddAndGet adds delta and returns the new value (INCRBY).
func (a *AtomicLong) AddAndGet(ctx context.Context, delta int64) (int64, error) {
	if a == nil {
		return *new(int64), core.NilHandle("atomic long", "add and get")
	}
	if err := a.base.Check(ctx, "add and get"); err != nil {
		return 0, err
	}
	n, err := a.base.Redis().IncrBy(ctx, a.base.Name(), delta).Result()
	return a.counted(ctx, "add and get", n, err)
}

// GetAndAdd adds delta and returns the previous value (INCRBY).
func (a *AtomicLong) GetAndAdd(ctx context.Context, delta int64) (int64, error) {
	if a == nil {
		return *new(int64), core.NilHandle("atomic long", "get and add")
	}
	n, err := a.AddAndGet(ctx, delta)
	if err != nil {
		return 0, err
	}
	return n - delta, nil
}

// IncrementAndGet adds 1 and returns the new value (INCR).
func (a *AtomicLong) IncrementAndGet(ctx context.Context) (int64, error) {
	if a == nil {
		return *new(int64), core.NilHandle("atomic long", "increment and get")
	}
	if err := a.base.Check(ctx, "increment and get"); err != nil {
		return 0, err
	}
	n, err := a.base.Redis().Incr(ctx, a.base.Name()).Result()
	return a.counted(ctx, "increment and get", n, err)
}

// DecrementAndGet subtracts 1 and returns the new value (DECR).
func (a *AtomicLong) DecrementAndGet(ctx context.Context) (int64, error) {
	if a == nil {
		return *new(int64), core.NilHandle("atomic long", "decrement and get")
	}
	if err := a.base.Check(ctx, "decrement and get"); err != nil {
		return 0, err
	}
	n, err := a.base.Redis().Decr(ctx, a.base.Name()).Result()
	return a.counted(ctx, "decrement and get", n, err)
}

// GetAndSet stores v (removing any TTL) and returns the previous value, 0
// when there was none (GETSET).
func (a *AtomicLong) GetAndSet(ctx context.Context, v int64) (int64, error) {
	if a == nil {
		return *new(int64), core.NilHandle("atomic long", "get and set")
	}
	if err := a.base.Check(ctx, "get and set"); err != nil {
		return 0, err
	}
	s, err := a.base.Redis().GetSet(ctx, a.base.Name(), strconv.FormatInt(v, 10)).Result()
	return a.parse(ctx, "get and set", s, err, fmt.Sprintf(" (it now holds %d)", v))
}

// CompareAndSet stores update when the value is expect (an absent counter
// matches 0) and reports whether it did, with Redisson's script (the TTL
// is removed).
func (a *AtomicLong) CompareAndSet(ctx context.Context, expect, update int64) (bool, error) {
	if a == nil {
		return false, core.NilHandle("atomic long", "compare and set")
	}
	if err := a.base.Check(ctx, "compare and set"); err != nil {
		return false, err
	}
	n, err := longCompareAndSetScript.Cmd(ctx, a.base.Redis(), []string{a.base.Name()},
		strconv.FormatInt(expect, 10), strconv.FormatInt(update, 10)).Int64()
	return a.boolResult(ctx, n == 1, "compare and set", err)
}

// GetAndDelete deletes the key and returns the value it held, 0 when there
// was none (Redisson's GET + DEL script).
func (a *AtomicLong) GetAndDelete(ctx context.Context) (int64, error) {
	if a == nil {
		return *new(int64), core.NilHandle("atomic long", "get and delete")
	}
	if err := a.base.Check(ctx, "get and delete"); err != nil {
		return 0, err
	}
	s, err := getAndDeleteScript.Cmd(ctx, a.base.Redis(), []string{a.base.Name()}).Text()
	return a.parse(ctx, "get and delete", s, err, " (it was deleted)")
}

// Delete deletes the key and reports whether it existed (DEL).
func (a *AtomicLong) Delete(ctx context.Context) (bool, error) {
	if a == nil {
		return false, core.NilHandle("atomic long", "delete")
	}
	return a.delete(ctx)
}

// RemainTTL returns the key's remaining time to live (PTTL), -2 (ns) when
// it does not exist, -1 when it has no expiry, as Bucket.RemainTTL.
func (a *AtomicLong) RemainTTL(ctx context.Context) (time.Duration, error) {
	if a == nil {
		return *new(time.Duration), core.NilHandle("atomic long", "remain ttl")
	}
	return a.remainTTL(ctx)
}
