package value

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson/codec"
	"github.com/goredisson/redisson/internal/core"
)

// AtomicLong is Redisson's RAtomicLong: a 64-bit counter stored under the
// key name as a decimal string ("42"), changed with Redis' atomic INCRBY,
// INCR, DECR, GETSET and Redisson's compare-and-set script. A missing key
// counts as 0, as in Java.
type AtomicLong struct {
	rdb  redis.UniversalClient
	name string
	err  error
	life context.Context
}

// NewAtomicLong returns the counter called name. An empty name or a nil
// client gives a handle whose every call fails (ErrInvalidName,
// ErrInvalidArgument). Options: WithLifetime.
func NewAtomicLong(rdb redis.UniversalClient, name string, opts ...Option) *AtomicLong {
	a := &AtomicLong{rdb: rdb, name: name, life: applyOptions(opts).life}
	switch {
	case name == "":
		a.err = fmt.Errorf("atomiclong: %w: empty name", core.ErrInvalidName)
	case rdb == nil:
		a.err = fmt.Errorf("atomiclong %q: %w: nil Redis client", name, core.ErrInvalidArgument)
	}
	return a
}

// Name returns the counter's name, which is also its key.
func (a *AtomicLong) Name() string { return a.name }

// check returns why a call cannot be made: an invalid handle, or the end of
// its lifetime (WithLifetime).
func (a *AtomicLong) check(op string) error { return usable(a.err, a.life, op) }

// parse reads a decimal reply; nil (no key) is 0, as Redisson's
// LongReplayConvertor reads it.
func parseLong(op, s string, err error) (int64, error) {
	if errors.Is(err, redis.Nil) {
		return 0, nil
	}
	if err != nil {
		return 0, core.WrapRedisError(op, err)
	}
	var n int64
	if err := codec.Long().Decode([]byte(s), &n); err != nil {
		return 0, &core.OpError{Op: op, Err: err}
	}
	return n, nil
}

// Get returns the value, 0 when the key does not exist (GET).
func (a *AtomicLong) Get(ctx context.Context) (int64, error) {
	if err := a.check("atomiclong.get"); err != nil {
		return 0, err
	}
	s, err := a.rdb.Get(ctx, a.name).Result()
	return parseLong("atomiclong.get", s, err)
}

// Set stores v, removing any TTL (SET).
func (a *AtomicLong) Set(ctx context.Context, v int64) error {
	if err := a.check("atomiclong.set"); err != nil {
		return err
	}
	return core.WrapRedisError("atomiclong.set", a.rdb.Set(ctx, a.name, strconv.FormatInt(v, 10), 0).Err())
}

// AddAndGet adds delta and returns the new value (INCRBY).
func (a *AtomicLong) AddAndGet(ctx context.Context, delta int64) (int64, error) {
	if err := a.check("atomiclong.addAndGet"); err != nil {
		return 0, err
	}
	n, err := a.rdb.IncrBy(ctx, a.name, delta).Result()
	return n, core.WrapRedisError("atomiclong.addAndGet", err)
}

// GetAndAdd adds delta and returns the previous value (INCRBY).
func (a *AtomicLong) GetAndAdd(ctx context.Context, delta int64) (int64, error) {
	n, err := a.AddAndGet(ctx, delta)
	if err != nil {
		return 0, err
	}
	return n - delta, nil
}

// IncrementAndGet adds 1 and returns the new value (INCR).
func (a *AtomicLong) IncrementAndGet(ctx context.Context) (int64, error) {
	if err := a.check("atomiclong.incrementAndGet"); err != nil {
		return 0, err
	}
	n, err := a.rdb.Incr(ctx, a.name).Result()
	return n, core.WrapRedisError("atomiclong.incrementAndGet", err)
}

// DecrementAndGet subtracts 1 and returns the new value (DECR).
func (a *AtomicLong) DecrementAndGet(ctx context.Context) (int64, error) {
	if err := a.check("atomiclong.decrementAndGet"); err != nil {
		return 0, err
	}
	n, err := a.rdb.Decr(ctx, a.name).Result()
	return n, core.WrapRedisError("atomiclong.decrementAndGet", err)
}

// GetAndSet stores v (removing any TTL) and returns the previous value, 0
// when there was none (GETSET).
func (a *AtomicLong) GetAndSet(ctx context.Context, v int64) (int64, error) {
	if err := a.check("atomiclong.getAndSet"); err != nil {
		return 0, err
	}
	s, err := a.rdb.GetSet(ctx, a.name, strconv.FormatInt(v, 10)).Result()
	return parseLong("atomiclong.getAndSet", s, err)
}

// CompareAndSet stores update when the value is expect (an absent counter
// matches 0) and reports whether it did, with Redisson's script (the TTL
// is removed).
func (a *AtomicLong) CompareAndSet(ctx context.Context, expect, update int64) (bool, error) {
	if err := a.check("atomiclong.compareAndSet"); err != nil {
		return false, err
	}
	n, err := longCompareAndSetScript.Run(ctx, a.rdb, []string{a.name},
		strconv.FormatInt(expect, 10), strconv.FormatInt(update, 10)).Int64()
	return boolResult(n == 1, "atomiclong.compareAndSet", err)
}

// GetAndDelete deletes the key and returns the value it held, 0 when there
// was none (Redisson's GET + DEL script).
func (a *AtomicLong) GetAndDelete(ctx context.Context) (int64, error) {
	if err := a.check("atomiclong.getAndDelete"); err != nil {
		return 0, err
	}
	s, err := getAndDeleteScript.Run(ctx, a.rdb, []string{a.name}).Text()
	return parseLong("atomiclong.getAndDelete", s, err)
}

// Delete deletes the key and reports whether it existed (DEL).
func (a *AtomicLong) Delete(ctx context.Context) (bool, error) {
	const op = "atomiclong.delete"
	return deleteKey(ctx, a.rdb, a.check(op), op, a.name)
}

// RemainTTL returns the key's remaining time to live (PTTL), -2 (ns) when
// it does not exist, -1 when it has no expiry, as Bucket.RemainTTL.
func (a *AtomicLong) RemainTTL(ctx context.Context) (time.Duration, error) {
	const op = "atomiclong.remainTTL"
	return remainTTL(ctx, a.rdb, a.check(op), op, a.name)
}
