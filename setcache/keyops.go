package setcache

import (
	"context"
	"time"

	"github.com/goredisson/redisson/internal/core"
)

// Delete deletes the set cache and reports whether it existed (DEL), and
// stops this client's clean-up of it, as Redisson's destroy does; the next
// write through any handle of the name starts it again.
func (s *SetCache[T]) Delete(ctx context.Context) (bool, error) {
	if s == nil {
		return false, core.NilHandle(kind, "delete")
	}
	const op = "delete"
	if err := s.base.Check(ctx, op); err != nil {
		return false, err
	}
	cmd, err := s.send(ctx, true, "del", s.base.Name())
	if err != nil {
		return false, s.base.Fail(ctx, op, err)
	}
	s.base.Runtime().Eviction().Remove(s.base.Name())
	n, _ := cmd.Int64()
	return n == 1, nil
}

// Expire gives the whole set a time to live, at least a millisecond, and
// reports whether it exists (PEXPIRE, the effect of Redisson's expire on
// its one key).
func (s *SetCache[T]) Expire(ctx context.Context, ttl time.Duration) (bool, error) {
	if s == nil {
		return false, core.NilHandle(kind, "expire")
	}
	const op = "expire"
	if err := s.base.Check(ctx, op); err != nil {
		return false, err
	}
	if ttl < time.Millisecond {
		return false, s.base.Invalid(op, "the TTL must be at least 1ms, got %v", ttl)
	}
	return s.flag(ctx, op, "pexpire", s.base.Name(), ttl.Milliseconds())
}

// ClearExpire removes the set's time to live and reports whether it had
// one (PERSIST, Redisson's clearExpire).
func (s *SetCache[T]) ClearExpire(ctx context.Context) (bool, error) {
	if s == nil {
		return false, core.NilHandle(kind, "clear expire")
	}
	const op = "clear expire"
	if err := s.base.Check(ctx, op); err != nil {
		return false, err
	}
	return s.flag(ctx, op, "persist", s.base.Name())
}

func (s *SetCache[T]) flag(ctx context.Context, op string, args ...any) (bool, error) {
	cmd, err := s.send(ctx, true, args...)
	if err != nil {
		return false, s.base.Fail(ctx, op, err)
	}
	n, err := cmd.Int64()
	if err != nil {
		return false, s.base.Fail(ctx, op, err)
	}
	return n == 1, nil
}

// RemainTimeToLive returns the time to live of the whole set (PTTL,
// Redisson's remainTimeToLive), and false when it has none: no key, or a
// key without one (Java's -2 and -1). Members' own expiries are their
// scores; Redisson has no call that reads one.
func (s *SetCache[T]) RemainTimeToLive(ctx context.Context) (time.Duration, bool, error) {
	if s == nil {
		return 0, false, core.NilHandle(kind, "remain time to live")
	}
	const op = "remain time to live"
	if err := s.base.Check(ctx, op); err != nil {
		return 0, false, err
	}
	cmd, err := s.send(ctx, false, "pttl", s.base.Name())
	if err != nil {
		return 0, false, s.base.Fail(ctx, op, err)
	}
	ms, err := cmd.Int64()
	if err != nil {
		return 0, false, s.base.Fail(ctx, op, err)
	}
	if ms < 0 {
		return 0, false, nil
	}
	return time.Duration(ms) * time.Millisecond, true, nil
}
