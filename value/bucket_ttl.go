package value

import (
	"context"
	"fmt"
	"time"

	"github.com/goredisson/redisson/internal/core"
)

// ExpireMode is the condition of Bucket.ExpireIf: Redis' PEXPIRE options,
// which Redisson's expireIfSet, expireIfNotSet, expireIfGreater and
// expireIfLess pass.
type ExpireMode string

// The conditions of ExpireIf.
const (
	// ExpireIfSet sets the TTL only when the key has one (XX).
	ExpireIfSet ExpireMode = "XX"
	// ExpireIfNotSet sets the TTL only when the key has none (NX).
	ExpireIfNotSet ExpireMode = "NX"
	// ExpireIfGreater sets the TTL only when it is greater than the key's
	// (GT; no TTL counts as infinite).
	ExpireIfGreater ExpireMode = "GT"
	// ExpireIfLess sets the TTL only when it is less than the key's (LT;
	// no TTL counts as infinite).
	ExpireIfLess ExpireMode = "LT"
)

func (m ExpireMode) valid() bool {
	switch m {
	case ExpireIfSet, ExpireIfNotSet, ExpireIfGreater, ExpireIfLess:
		return true
	}
	return false
}

// expire sends Redisson's expire script for the object's key: mode "" for
// a plain expire.
func (o *object) expire(ctx context.Context, op string, ttl time.Duration, mode ExpireMode) (bool, error) {
	if err := o.base.Check(ctx, op); err != nil {
		return false, err
	}
	ms, err := o.ttlMillis(op, ttl)
	if err != nil {
		return false, err
	}
	if mode != "" && !mode.valid() {
		return false, o.base.Named(op, fmt.Errorf("%w: unknown expire mode %q", core.ErrInvalidArgument, string(mode)))
	}
	n, err := expireScript.Cmd(ctx, o.base.Redis(), []string{o.base.Name()}, ms, string(mode)).Int64()
	return o.boolResult(ctx, n == 1, op, err)
}

// expireAt sends Redisson's expire-at script (PEXPIREAT, epoch ms).
func (o *object) expireAt(ctx context.Context, at time.Time) (bool, error) {
	const op = "expire at"
	if err := o.base.Check(ctx, op); err != nil {
		return false, err
	}
	if at.IsZero() {
		return false, o.base.Named(op, fmt.Errorf("%w: zero time", core.ErrInvalidArgument))
	}
	n, err := expireAtScript.Cmd(ctx, o.base.Redis(), []string{o.base.Name()}, at.UnixMilli(), "").Int64()
	return o.boolResult(ctx, n == 1, op, err)
}

// clearExpire removes the key's TTL (PERSIST).
func (o *object) clearExpire(ctx context.Context) (bool, error) {
	const op = "clear expire"
	if err := o.base.Check(ctx, op); err != nil {
		return false, err
	}
	n, err := o.base.Redis().Persist(ctx, o.base.Name()).Result()
	return o.boolResult(ctx, n, op, err)
}

// Expire sets the key's time to live, at least 1ms, and reports whether
// the key exists (Redisson's expire script: PEXPIRE).
func (b *Bucket[T]) Expire(ctx context.Context, ttl time.Duration) (bool, error) {
	if b == nil {
		return false, core.NilHandle("bucket", "expire")
	}
	return b.expire(ctx, "expire", ttl, "")
}

// ExpireIf sets the key's time to live when mode's condition holds and
// reports whether it did (Redisson's expireIfSet, expireIfNotSet,
// expireIfGreater, expireIfLess: PEXPIRE with XX, NX, GT or LT).
func (b *Bucket[T]) ExpireIf(ctx context.Context, ttl time.Duration, mode ExpireMode) (bool, error) {
	if b == nil {
		return false, core.NilHandle("bucket", "expire if")
	}
	return b.expire(ctx, "expire if "+string(mode), ttl, mode)
}

// ExpireAt makes the key expire at a point in time, in whole milliseconds,
// and reports whether the key exists (Redisson's expireAt script:
// PEXPIREAT). A time in the past deletes the key.
func (b *Bucket[T]) ExpireAt(ctx context.Context, at time.Time) (bool, error) {
	if b == nil {
		return false, core.NilHandle("bucket", "expire at")
	}
	return b.expireAt(ctx, at)
}

// ClearExpire removes the key's time to live and reports whether it had
// one (PERSIST).
func (b *Bucket[T]) ClearExpire(ctx context.Context) (bool, error) {
	if b == nil {
		return false, core.NilHandle("bucket", "clear expire")
	}
	return b.clearExpire(ctx)
}

// SetKeepTTL replaces the value and keeps the key's time to live (SET ...
// KEEPTTL); a nil v deletes the key (DEL), as Java's setAndKeepTTL(null).
func (b *Bucket[T]) SetKeepTTL(ctx context.Context, v T) error {
	if b == nil {
		return core.NilHandle("bucket", "set and keep ttl")
	}
	const op = "set and keep TTL"
	if err := b.base.Check(ctx, op); err != nil {
		return err
	}
	if isNull(v) {
		return b.base.Fail(ctx, op, b.base.Redis().Del(ctx, b.base.Name()).Err())
	}
	data, err := b.encode(op, v)
	if err != nil {
		return err
	}
	return b.base.Fail(ctx, op, b.base.Redis().Do(ctx, "set", b.base.Name(), data, "KEEPTTL").Err())
}

// GetAndExpire returns the value and sets the key's time to live, at least
// 1ms, in one command (GETEX key PX ms); false when the key does not exist.
func (b *Bucket[T]) GetAndExpire(ctx context.Context, ttl time.Duration) (T, bool, error) {
	if b == nil {
		return *new(T), false, core.NilHandle("bucket", "get and expire")
	}
	const op = "get and expire"
	if err := b.base.Check(ctx, op); err != nil {
		return *new(T), false, err
	}
	ms, err := b.ttlMillis(op, ttl)
	if err != nil {
		return *new(T), false, err
	}
	data, err := b.base.Redis().Do(ctx, "getex", b.base.Name(), "PX", ms).Text()
	return b.decode(ctx, op, data, err)
}

// GetAndClearExpire returns the value and removes the key's time to live
// in one command (GETEX key PERSIST); false when the key does not exist.
func (b *Bucket[T]) GetAndClearExpire(ctx context.Context) (T, bool, error) {
	if b == nil {
		return *new(T), false, core.NilHandle("bucket", "get and clear expire")
	}
	const op = "get and clear expire"
	if err := b.base.Check(ctx, op); err != nil {
		return *new(T), false, err
	}
	data, err := b.base.Redis().Do(ctx, "getex", b.base.Name(), "PERSIST").Text()
	return b.decode(ctx, op, data, err)
}

// Size returns the length of the stored bytes, 0 when the key does not
// exist (STRLEN).
func (b *Bucket[T]) Size(ctx context.Context) (int64, error) {
	if b == nil {
		return 0, core.NilHandle("bucket", "size")
	}
	const op = "size"
	if err := b.base.Check(ctx, op); err != nil {
		return 0, err
	}
	n, err := b.base.Redis().StrLen(ctx, b.base.Name()).Result()
	if err != nil {
		return 0, b.base.Fail(ctx, op, err)
	}
	return n, nil
}
