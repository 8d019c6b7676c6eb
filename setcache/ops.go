package setcache

import (
	"context"
	"fmt"
	"iter"
	"time"

	"github.com/goredisson/redisson/internal/core"
)

// nowMS is the caller's clock, which decides expiry in every script, as
// Java's System.currentTimeMillis() does in Redisson's.
func nowMS() int64 { return time.Now().UnixMilli() }

// expiry returns the score of a member added now with ttl: NoExpiry for
// 0 (Java's add(v, 0, unit) is add(v)), now + ttl otherwise.
func (s *SetCache[T]) expiry(op string, now int64, ttl time.Duration) (int64, error) {
	switch {
	case ttl < 0:
		return 0, s.base.Invalid(op, "the TTL must not be negative, got %v", ttl)
	case ttl == 0:
		return NoExpiry, nil
	case ttl < time.Millisecond:
		return 0, s.base.Invalid(op, "the TTL must be 0 (none) or at least 1ms, got %v", ttl)
	}
	return now + ttl.Milliseconds(), nil
}

// Add adds v without a time to live and reports whether it is new: absent
// or expired before (Redisson's add). A live member keeps its place and
// loses any TTL it had.
func (s *SetCache[T]) Add(ctx context.Context, v T) (bool, error) {
	if s == nil {
		return false, core.NilHandle(kind, "add")
	}
	return s.add(ctx, v, 0)
}

// AddTTL adds v to expire ttl from now and reports whether it is new:
// absent or expired before (Redisson's add(v, ttl, unit)). A live member
// gets the new expiry and AddTTL reports false. A ttl of 0 means none, as
// in Java; a negative one is refused.
func (s *SetCache[T]) AddTTL(ctx context.Context, v T, ttl time.Duration) (bool, error) {
	if s == nil {
		return false, core.NilHandle(kind, "add")
	}
	return s.add(ctx, v, ttl)
}

func (s *SetCache[T]) add(ctx context.Context, v T, ttl time.Duration) (bool, error) {
	const op = "add"
	if err := s.base.Check(ctx, op); err != nil {
		return false, err
	}
	now := nowMS()
	exp, err := s.expiry(op, now, ttl)
	if err != nil {
		return false, err
	}
	data, err := s.encode(op, v)
	if err != nil {
		return false, err
	}
	s.schedule() // again after a Delete stopped it
	res, err := s.eval(ctx, addScript, true, now, exp, data)
	if err != nil {
		return false, s.base.Fail(ctx, op, err)
	}
	return res == int64(1), nil
}

// AddAll adds vs without a time to live in one script and returns how
// many are new (absent or expired before), as Redisson's addAll(Map) with
// zero durations counts them. None: nothing is sent.
func (s *SetCache[T]) AddAll(ctx context.Context, vs ...T) (int64, error) {
	if s == nil {
		return 0, core.NilHandle(kind, "add all")
	}
	return s.addAll(ctx, 0, vs)
}

// AddAllTTL is AddAll with every member expiring ttl from now (0: none).
func (s *SetCache[T]) AddAllTTL(ctx context.Context, ttl time.Duration, vs ...T) (int64, error) {
	if s == nil {
		return 0, core.NilHandle(kind, "add all")
	}
	return s.addAll(ctx, ttl, vs)
}

func (s *SetCache[T]) addAll(ctx context.Context, ttl time.Duration, vs []T) (int64, error) {
	const op = "add all"
	if err := s.base.Check(ctx, op); err != nil {
		return 0, err
	}
	now := nowMS()
	exp, err := s.expiry(op, now, ttl)
	if err != nil || len(vs) == 0 {
		return 0, err
	}
	args := make([]any, 0, 1+2*len(vs))
	args = append(args, now)
	for _, v := range vs {
		data, err := s.encode(op, v)
		if err != nil {
			return 0, err
		}
		args = append(args, exp, data)
	}
	s.schedule()
	res, err := s.eval(ctx, addAllScript, true, args...)
	if err != nil {
		return 0, s.base.Fail(ctx, op, err)
	}
	n, _ := res.(int64)
	return n, nil
}

// Contains reports whether v is a live member: stored with an expiry
// after now (Redisson's contains script). An expired member is absent
// even before the clean-up removes it.
func (s *SetCache[T]) Contains(ctx context.Context, v T) (bool, error) {
	if s == nil {
		return false, core.NilHandle(kind, "contains")
	}
	const op = "contains"
	if err := s.base.Check(ctx, op); err != nil {
		return false, err
	}
	data, err := s.encode(op, v)
	if err != nil {
		return false, err
	}
	res, err := s.eval(ctx, containsScript, false, nowMS(), data)
	if err != nil {
		return false, s.base.Fail(ctx, op, err)
	}
	return res == int64(1), nil
}

// Remove removes v and reports whether it was stored (ZREM), expired or
// not, as Redisson's remove.
func (s *SetCache[T]) Remove(ctx context.Context, v T) (bool, error) {
	if s == nil {
		return false, core.NilHandle(kind, "remove")
	}
	n, err := s.remove(ctx, "remove", []T{v})
	return n == 1, err
}

// RemoveAll removes vs in one command and returns how many were stored
// (ZREM), as Redisson's removeAllCounted. None: nothing is sent.
func (s *SetCache[T]) RemoveAll(ctx context.Context, vs ...T) (int64, error) {
	if s == nil {
		return 0, core.NilHandle(kind, "remove all")
	}
	return s.remove(ctx, "remove all", vs)
}

func (s *SetCache[T]) remove(ctx context.Context, op string, vs []T) (int64, error) {
	if err := s.base.Check(ctx, op); err != nil {
		return 0, err
	}
	if len(vs) == 0 {
		return 0, nil
	}
	args := make([]any, 0, 2+len(vs))
	args = append(args, "zrem", s.base.Name())
	for _, v := range vs {
		data, err := s.encode(op, v)
		if err != nil {
			return 0, err
		}
		args = append(args, data)
	}
	cmd, err := s.send(ctx, true, args...)
	if err != nil {
		return 0, s.base.Fail(ctx, op, err)
	}
	n, err := cmd.Int64()
	if err != nil {
		return 0, s.base.Fail(ctx, op, err)
	}
	return n, nil
}

// Size returns the number of live members (Redisson's size script:
// ZRANGEBYSCORE from now), not counting expired ones still stored.
func (s *SetCache[T]) Size(ctx context.Context) (int64, error) {
	if s == nil {
		return 0, core.NilHandle(kind, "size")
	}
	const op = "size"
	if err := s.base.Check(ctx, op); err != nil {
		return 0, err
	}
	res, err := s.eval(ctx, sizeScript, false, nowMS(), NoExpiry)
	if err != nil {
		return 0, s.base.Fail(ctx, op, err)
	}
	n, _ := res.(int64)
	return n, nil
}

// ReadAll returns every live member in one command, soonest to expire
// first (ZRANGEBYSCORE name now 92233720368547758, Redisson's readAll).
// For a set that may be large, iterate with All.
func (s *SetCache[T]) ReadAll(ctx context.Context) ([]T, error) {
	if s == nil {
		return nil, core.NilHandle(kind, "read all")
	}
	const op = "read all"
	if err := s.base.Check(ctx, op); err != nil {
		return nil, err
	}
	cmd, err := s.send(ctx, false, "zrangebyscore", s.base.Name(), nowMS(), NoExpiry)
	if err != nil {
		return nil, s.base.Fail(ctx, op, err)
	}
	items, err := cmd.StringSlice()
	if err != nil {
		return nil, s.base.Fail(ctx, op, err)
	}
	out := make([]T, 0, len(items))
	for _, it := range items {
		v, err := s.member(it)
		if err != nil {
			return nil, s.base.Fail(ctx, op, err)
		}
		out = append(out, v)
	}
	return out, nil
}

// ScanOption configures one iteration of All.
type ScanOption func(*scanOptions)

type scanOptions struct {
	page  int
	match string
}

// WithPageSize sets the ZSCAN COUNT of one page (a hint to Redis): at
// least 1, default DefaultPageSize.
func WithPageSize(n int) ScanOption { return func(o *scanOptions) { o.page = n } }

// WithMatch keeps only the members whose encoded bytes match the glob
// pattern (ZSCAN MATCH), as Redisson's iterator(pattern).
func WithMatch(pattern string) ScanOption { return func(o *scanOptions) { o.match = pattern } }

// All iterates over the live members in pages, never in one command:
// Redisson's iterator script, one ZSCAN page a call that leaves out the
// members expired at the page's now, so an expired member is never
// yielded. The second value is an error: a failed page, a member the
// codec cannot read, ctx done; it is the last pair. Scans have Redis'
// SCAN guarantees: a member live from start to end is seen at least once,
// possibly twice. Options: WithPageSize, WithMatch.
func (s *SetCache[T]) All(ctx context.Context, opts ...ScanOption) iter.Seq2[T, error] {
	if s == nil {
		return core.NilSeq2[T](kind, "iterate")
	}
	return func(yield func(T, error) bool) {
		const op = "iterate"
		var zero T
		so := scanOptions{page: DefaultPageSize}
		for _, o := range opts {
			if o != nil {
				o(&so)
			}
		}
		if so.page < 1 {
			yield(zero, s.base.Invalid(op, "the page size must be at least 1, got %d", so.page))
			return
		}
		cursor := "0"
		for {
			members, next, err := s.page(ctx, op, cursor, so)
			if err != nil {
				yield(zero, err)
				return
			}
			for _, m := range members {
				if err := s.base.Check(ctx, op); err != nil {
					yield(zero, err)
					return
				}
				v, err := s.member(m)
				if err != nil {
					yield(zero, s.base.Fail(ctx, op, err))
					return
				}
				if !yield(v, nil) {
					return
				}
			}
			if next == "0" || next == "" {
				return
			}
			cursor = next
		}
	}
}

// page runs the iterator script once from cursor and returns the live
// members of the page and the next cursor.
func (s *SetCache[T]) page(ctx context.Context, op, cursor string, so scanOptions) ([]string, string, error) {
	if err := s.base.Check(ctx, op); err != nil {
		return nil, "", err
	}
	args := []any{cursor, nowMS()}
	if so.match != "" {
		args = append(args, so.match)
	}
	args = append(args, so.page)
	res, err := s.eval(ctx, scanScript, false, args...)
	if err != nil {
		return nil, "", s.base.Fail(ctx, op, err)
	}
	reply, ok := res.([]any)
	var items []any
	if ok && len(reply) == 2 {
		items, ok = reply[1].([]any)
	}
	if !ok {
		return nil, "", s.base.Fail(ctx, op, fmt.Errorf("unexpected iterator reply %v", res))
	}
	next, _ := reply[0].(string)
	members := make([]string, 0, len(items))
	for _, it := range items {
		m, _ := it.(string)
		members = append(members, m)
	}
	return members, next, nil
}
