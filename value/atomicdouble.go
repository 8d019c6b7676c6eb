package value

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/internal/javanum"
	"github.com/goredisson/redisson/source"
)

// AtomicDouble is Redisson's RAtomicDouble: a float64 stored under the key
// name as a decimal string, changed with Redis' atomic INCRBYFLOAT, GETSET
// and Redisson's compare-and-set script. Numbers are sent as Java's
// BigDecimal.valueOf(d).toPlainString() writes them ("1.5", "3.0",
// "100000000000000000000"), so the stored bytes are Java's; Redis itself
// writes INCRBYFLOAT's result ("3", not "3.0"). A missing key counts as 0.
type AtomicDouble struct {
	object
}

// NewAtomicDouble returns the number called name of src's client
// ((*redisson.Client).AtomicDouble). An empty name or a nil or zero src
// gives a handle whose every call fails (ErrInvalidName,
// ErrInvalidArgument).
func NewAtomicDouble(src *source.Source, name string) *AtomicDouble {
	return &AtomicDouble{object: newObject("atomic double", src, name)}
}

// Name returns the number's name, which is also its key.
func (a *AtomicDouble) Name() string {
	if a == nil {
		return *new(string)
	}
	return a.base.Name()
}

// javaPlain writes d as Java's BigDecimal.valueOf(d).toPlainString().
// NaN and infinities have no BigDecimal.
func javaPlain(d float64) (string, error) {
	if math.IsNaN(d) || math.IsInf(d, 0) {
		return "", fmt.Errorf("%w: %v is not a finite number", core.ErrInvalidArgument, d)
	}
	return javanum.JavaPlain(d, 64), nil
}

// plain is javaPlain as the named error of op.
func (a *AtomicDouble) plain(op string, d float64) (string, error) {
	s, err := javaPlain(d)
	if err != nil {
		return "", a.base.Named(op, err)
	}
	return s, nil
}

// parse reads a number reply; nil (no key) is 0, as Java reads it.
func (a *AtomicDouble) parse(ctx context.Context, op, s string, err error) (float64, error) {
	if errors.Is(err, redis.Nil) {
		return 0, nil
	}
	var re redis.Error
	if errors.As(err, &re) && strings.Contains(re.Error(), "not a valid float") {
		return 0, a.base.Fail(ctx, op, fmt.Errorf("%w: the key holds a string that is not a number", core.ErrWrongType))
	}
	if err != nil {
		return 0, a.base.Fail(ctx, op, err)
	}
	f, perr := strconv.ParseFloat(s, 64)
	if perr != nil {
		return 0, a.base.Fail(ctx, op, fmt.Errorf("%w: the key holds the string %.40q, not a number", core.ErrWrongType, s))
	}
	return f, nil
}

// incr sends INCRBYFLOAT with Java's argument text.
func (a *AtomicDouble) incr(ctx context.Context, op string, by string) (float64, error) {
	if err := a.base.Check(ctx, op); err != nil {
		return 0, err
	}
	s, err := a.base.Redis().Do(ctx, "incrbyfloat", a.base.Name(), by).Text()
	return a.parse(ctx, op, s, err)
}

// Get returns the value, 0 when the key does not exist (GET).
func (a *AtomicDouble) Get(ctx context.Context) (float64, error) {
	if a == nil {
		return 0, core.NilHandle("atomic double", "get")
	}
	if err := a.base.Check(ctx, "get"); err != nil {
		return 0, err
	}
	s, err := a.base.Redis().Get(ctx, a.base.Name()).Result()
	return a.parse(ctx, "get", s, err)
}

// Set stores v, removing any TTL (SET). NaN and infinities are refused
// (ErrInvalidArgument), as Java cannot write them.
func (a *AtomicDouble) Set(ctx context.Context, v float64) error {
	if a == nil {
		return core.NilHandle("atomic double", "set")
	}
	if err := a.base.Check(ctx, "set"); err != nil {
		return err
	}
	s, err := a.plain("set", v)
	if err != nil {
		return err
	}
	return a.base.Fail(ctx, "set", a.base.Redis().Set(ctx, a.base.Name(), s, 0).Err())
}

// AddAndGet adds delta and returns the new value (INCRBYFLOAT).
func (a *AtomicDouble) AddAndGet(ctx context.Context, delta float64) (float64, error) {
	if a == nil {
		return 0, core.NilHandle("atomic double", "add and get")
	}
	if delta == 0 {
		return a.incr(ctx, "add and get", "0") // Java sends the integer 0
	}
	s, err := a.plain("add and get", delta)
	if err != nil {
		return 0, err
	}
	return a.incr(ctx, "add and get", s)
}

// GetAndAdd adds delta and returns the previous value (INCRBYFLOAT; the
// previous value is the new one less delta, as Java computes it).
func (a *AtomicDouble) GetAndAdd(ctx context.Context, delta float64) (float64, error) {
	if a == nil {
		return 0, core.NilHandle("atomic double", "get and add")
	}
	s, err := a.plain("get and add", delta)
	if err != nil {
		return 0, err
	}
	n, err := a.incr(ctx, "get and add", s)
	if err != nil {
		return 0, err
	}
	return n - delta, nil
}

// IncrementAndGet adds 1 and returns the new value (INCRBYFLOAT key 1).
func (a *AtomicDouble) IncrementAndGet(ctx context.Context) (float64, error) {
	if a == nil {
		return 0, core.NilHandle("atomic double", "increment and get")
	}
	return a.incr(ctx, "increment and get", "1")
}

// DecrementAndGet subtracts 1 and returns the new value (INCRBYFLOAT key
// -1).
func (a *AtomicDouble) DecrementAndGet(ctx context.Context) (float64, error) {
	if a == nil {
		return 0, core.NilHandle("atomic double", "decrement and get")
	}
	return a.incr(ctx, "decrement and get", "-1")
}

// GetAndSet stores v (removing any TTL) and returns the previous value, 0
// when there was none (GETSET).
func (a *AtomicDouble) GetAndSet(ctx context.Context, v float64) (float64, error) {
	if a == nil {
		return 0, core.NilHandle("atomic double", "get and set")
	}
	const op = "get and set"
	if err := a.base.Check(ctx, op); err != nil {
		return 0, err
	}
	s, err := a.plain(op, v)
	if err != nil {
		return 0, err
	}
	old, err := a.base.Redis().GetSet(ctx, a.base.Name(), s).Result()
	return a.parse(ctx, op, old, err)
}

// CompareAndSet stores update when the value equals expect as a number (an
// absent value matches 0) and reports whether it did, with Redisson's
// script (the TTL is removed).
func (a *AtomicDouble) CompareAndSet(ctx context.Context, expect, update float64) (bool, error) {
	if a == nil {
		return false, core.NilHandle("atomic double", "compare and set")
	}
	const op = "compare and set"
	if err := a.base.Check(ctx, op); err != nil {
		return false, err
	}
	e, err := a.plain(op, expect)
	if err != nil {
		return false, err
	}
	u, err := a.plain(op, update)
	if err != nil {
		return false, err
	}
	n, err := doubleCompareAndSetScript.Cmd(ctx, a.base.Redis(), []string{a.base.Name()}, e, u).Int64()
	return a.boolResult(ctx, n == 1, op, err)
}

// GetAndDelete deletes the key and returns the value it held, 0 when there
// was none (Redisson's GET + DEL script).
func (a *AtomicDouble) GetAndDelete(ctx context.Context) (float64, error) {
	if a == nil {
		return 0, core.NilHandle("atomic double", "get and delete")
	}
	if err := a.base.Check(ctx, "get and delete"); err != nil {
		return 0, err
	}
	s, err := getAndDeleteScript.Cmd(ctx, a.base.Redis(), []string{a.base.Name()}).Text()
	return a.parse(ctx, "get and delete", s, err)
}

// Delete deletes the key and reports whether it existed (DEL).
func (a *AtomicDouble) Delete(ctx context.Context) (bool, error) {
	if a == nil {
		return false, core.NilHandle("atomic double", "delete")
	}
	return a.delete(ctx)
}

// RemainTTL returns the key's remaining time to live (PTTL), -2 (ns) when
// it does not exist, -1 when it has no expiry, as Bucket.RemainTTL.
func (a *AtomicDouble) RemainTTL(ctx context.Context) (time.Duration, error) {
	if a == nil {
		return 0, core.NilHandle("atomic double", "remain ttl")
	}
	return a.remainTTL(ctx)
}
