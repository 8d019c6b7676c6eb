package collection

import (
	"context"
	"fmt"
	"iter"
	"math"
	"strconv"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson/codec"
	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/internal/javanum"
	"github.com/goredisson/redisson/internal/lua"
	"github.com/goredisson/redisson/internal/objbase"
	"github.com/goredisson/redisson/source"
)

// Redisson's poll script of RScoredSortedSet (the records'
// collections.scored_sorted_set).
var zsetPollScript = core.NewScript("scored sorted set poll", lua.MustText(luaFiles, "lua/scored_sorted_set_poll.lua"))

// ScoredSortedSet is Redisson's RScoredSortedSet<V>: a Redis sorted set
// under the key name, each member encoded with the set's codec, each with a
// float64 score. Ranks count from 0 at the lowest score. Scores must be
// finite (Redisson cannot send an infinite one); Java's null is refused as
// a member.
type ScoredSortedSet[T any] struct {
	object
	codec codec.Codec
}

// ScoredEntry is a member of a ScoredSortedSet with its score.
type ScoredEntry[T any] struct {
	Value T
	Score float64
}

// NewScoredSortedSet returns the sorted set called name, its members
// encoded with cd (Redisson's getScoredSortedSet(name, codec)). An empty
// name, a nil source or a nil codec gives a handle whose every call fails.
func NewScoredSortedSet[T any](src *source.Source, name string, cd codec.Codec) *ScoredSortedSet[T] {
	return &ScoredSortedSet[T]{object: newObject("scored sorted set", "zset", src, name, cd), codec: cd}
}

// Name returns the sorted set's name, which is also its key.
func (z *ScoredSortedSet[T]) Name() string {
	if z == nil {
		return *new(string)
	}
	return z.base.Name()
}

func (z *ScoredSortedSet[T]) encode(op string, v T) ([]byte, error) {
	e := &encoder{o: &z.object, op: op, cd: z.codec}
	data := e.enc("member", v)
	return data, e.err
}

func (z *ScoredSortedSet[T]) member(data string) (T, error) {
	v, err := decode[T](z.codec, data)
	if err != nil {
		return v, fmt.Errorf("member %.40q: %w", data, err)
	}
	return v, nil
}

func (z *ScoredSortedSet[T]) finite(op, what string, f float64) error {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return z.base.Invalid(op, "the %s must be a finite number, got %v", what, f)
	}
	return nil
}

// Add adds v with score, or sets the score of v when it is a member, and
// reports whether v was new (ZADD, the score as Java's BigDecimal prints a
// double: 9 is "9.0").
func (z *ScoredSortedSet[T]) Add(ctx context.Context, score float64, v T) (bool, error) {
	if z == nil {
		return false, core.NilHandle("scored sorted set", "add")
	}
	const op = "add"
	if err := z.base.Check(ctx, op); err != nil {
		return false, err
	}
	if err := z.finite(op, "score", score); err != nil {
		return false, err
	}
	data, err := z.encode(op, v)
	if err != nil {
		return false, err
	}
	cmd, err := z.write(ctx, "zadd", z.base.Name(), javanum.JavaPlain(score, 64), data)
	if err != nil {
		return false, z.base.Fail(ctx, op, err)
	}
	n, err := cmd.Int64()
	if err != nil {
		return false, z.base.Fail(ctx, op, err)
	}
	return n == 1, nil
}

// AddScore adds delta to the score of v (a new member starts at 0) and
// returns the new score (ZINCRBY), as Redisson's addScore. An integral
// delta is sent as an integer (what Java sends for an Integer or a Long),
// any other as Java prints a Double.
func (z *ScoredSortedSet[T]) AddScore(ctx context.Context, v T, delta float64) (float64, error) {
	if z == nil {
		return *new(float64), core.NilHandle("scored sorted set", "add score")
	}
	const op = "add score"
	if err := z.base.Check(ctx, op); err != nil {
		return 0, err
	}
	if err := z.finite(op, "delta", delta); err != nil {
		return 0, err
	}
	data, err := z.encode(op, v)
	if err != nil {
		return 0, err
	}
	d := javanum.JavaPlain(delta, 64)
	if delta == math.Trunc(delta) && math.Abs(delta) < 1<<53 {
		d = strconv.FormatInt(int64(delta), 10)
	}
	cmd, err := z.write(ctx, "zincrby", z.base.Name(), d, data)
	if err != nil {
		return 0, z.base.Fail(ctx, op, err)
	}
	f, err := floatReply(cmd.Val())
	if err != nil {
		return 0, z.base.Fail(ctx, op, err)
	}
	return f, nil
}

// floatReply reads a score reply: a bulk string in RESP2, a double in RESP3.
func floatReply(v any) (float64, error) {
	switch x := v.(type) {
	case float64:
		return x, nil
	case int64:
		return float64(x), nil
	case string:
		return strconv.ParseFloat(x, 64)
	}
	return 0, fmt.Errorf("unexpected score reply %v (%T)", v, v)
}

// Score returns the score of v, and false when v is not a member (ZSCORE).
func (z *ScoredSortedSet[T]) Score(ctx context.Context, v T) (float64, bool, error) {
	if z == nil {
		return *new(float64), false, core.NilHandle("scored sorted set", "score")
	}
	const op = "score"
	if err := z.base.Check(ctx, op); err != nil {
		return 0, false, err
	}
	data, err := z.encode(op, v)
	if err != nil {
		return 0, false, err
	}
	cmd, err := z.read(ctx, "zscore", z.base.Name(), data)
	if err != nil {
		return 0, false, z.base.Fail(ctx, op, err)
	}
	if cmd.Val() == nil {
		return 0, false, nil
	}
	f, err := floatReply(cmd.Val())
	if err != nil {
		return 0, false, z.base.Fail(ctx, op, err)
	}
	return f, true, nil
}

// Contains reports whether v is a member (ZSCORE), as Redisson's contains.
func (z *ScoredSortedSet[T]) Contains(ctx context.Context, v T) (bool, error) {
	if z == nil {
		return false, core.NilHandle("scored sorted set", "contains")
	}
	_, ok, err := z.Score(ctx, v)
	return ok, err
}

// Rank returns the rank of v counted from the lowest score (0 first), and
// false when v is not a member (ZRANK).
func (z *ScoredSortedSet[T]) Rank(ctx context.Context, v T) (int64, bool, error) {
	if z == nil {
		return *new(int64), false, core.NilHandle("scored sorted set", "rank")
	}
	return z.rank(ctx, "rank", "zrank", v)
}

// RevRank returns the rank of v counted from the highest score, and false
// when v is not a member (ZREVRANK).
func (z *ScoredSortedSet[T]) RevRank(ctx context.Context, v T) (int64, bool, error) {
	if z == nil {
		return *new(int64), false, core.NilHandle("scored sorted set", "rev rank")
	}
	return z.rank(ctx, "reverse rank", "zrevrank", v)
}

func (z *ScoredSortedSet[T]) rank(ctx context.Context, op, command string, v T) (int64, bool, error) {
	if err := z.base.Check(ctx, op); err != nil {
		return 0, false, err
	}
	data, err := z.encode(op, v)
	if err != nil {
		return 0, false, err
	}
	cmd, err := z.read(ctx, command, z.base.Name(), data)
	if err != nil {
		return 0, false, z.base.Fail(ctx, op, err)
	}
	if cmd.Val() == nil {
		return 0, false, nil
	}
	n, err := cmd.Int64()
	if err != nil {
		return 0, false, z.base.Fail(ctx, op, err)
	}
	return n, true, nil
}

// Remove removes v and reports whether it was a member (ZREM).
func (z *ScoredSortedSet[T]) Remove(ctx context.Context, v T) (bool, error) {
	if z == nil {
		return false, core.NilHandle("scored sorted set", "remove")
	}
	const op = "remove"
	if err := z.base.Check(ctx, op); err != nil {
		return false, err
	}
	data, err := z.encode(op, v)
	if err != nil {
		return false, err
	}
	cmd, err := z.write(ctx, "zrem", z.base.Name(), data)
	if err != nil {
		return false, z.base.Fail(ctx, op, err)
	}
	n, err := cmd.Int64()
	if err != nil {
		return false, z.base.Fail(ctx, op, err)
	}
	return n == 1, nil
}

// Size returns the number of members (ZCARD).
func (z *ScoredSortedSet[T]) Size(ctx context.Context) (int64, error) {
	if z == nil {
		return *new(int64), core.NilHandle("scored sorted set", "size")
	}
	return z.size(ctx, "zcard")
}

// Delete deletes the sorted set and reports whether it existed (DEL).
func (z *ScoredSortedSet[T]) Delete(ctx context.Context) (bool, error) {
	if z == nil {
		return false, core.NilHandle("scored sorted set", "delete")
	}
	return z.delete(ctx)
}

// ValueRange returns the members ranked start to stop, both included, from
// the lowest score (ZRANGE), as Redisson's valueRange(start, end); negative
// ranks count from the highest.
func (z *ScoredSortedSet[T]) ValueRange(ctx context.Context, start, stop int64) ([]T, error) {
	if z == nil {
		return *new([]T), core.NilHandle("scored sorted set", "value range")
	}
	return z.valueRange(ctx, "value range", start, stop)
}

// ReadAll returns every member from the lowest score in one command
// (ZRANGE 0 -1), as Redisson's readAll. For a set that may be large,
// iterate with Values or Entries.
func (z *ScoredSortedSet[T]) ReadAll(ctx context.Context) ([]T, error) {
	if z == nil {
		return *new([]T), core.NilHandle("scored sorted set", "read all")
	}
	return z.valueRange(ctx, "read all", 0, -1)
}

func (z *ScoredSortedSet[T]) valueRange(ctx context.Context, op string, start, stop int64) ([]T, error) {
	if err := z.base.Check(ctx, op); err != nil {
		return nil, err
	}
	cmd, err := z.read(ctx, "zrange", z.base.Name(), start, stop)
	if err != nil {
		return nil, z.base.Fail(ctx, op, err)
	}
	items, err := cmd.StringSlice()
	if err != nil {
		return nil, z.base.Fail(ctx, op, err)
	}
	return z.members(ctx, op, items)
}

func (z *ScoredSortedSet[T]) members(ctx context.Context, op string, items []string) ([]T, error) {
	out := make([]T, 0, len(items))
	for _, it := range items {
		v, err := z.member(it)
		if err != nil {
			return nil, z.base.Fail(ctx, op, err)
		}
		out = append(out, v)
	}
	return out, nil
}

// EntryRange returns the members ranked start to stop with their scores
// (ZRANGE ... WITHSCORES), as Redisson's entryRange(start, end).
func (z *ScoredSortedSet[T]) EntryRange(ctx context.Context, start, stop int64) ([]ScoredEntry[T], error) {
	if z == nil {
		return *new([]ScoredEntry[T]), core.NilHandle("scored sorted set", "entry range")
	}
	const op = "entry range"
	if err := z.base.Check(ctx, op); err != nil {
		return nil, err
	}
	zs, err := objbase.Bounded(ctx, z.base.Runtime(), func(ctx context.Context) ([]redis.Z, error) {
		return z.base.Redis().ZRangeWithScores(ctx, z.base.Name(), start, stop).Result()
	})
	if err != nil {
		return nil, z.base.Fail(ctx, op, err)
	}
	out := make([]ScoredEntry[T], 0, len(zs))
	for _, e := range zs {
		data, _ := e.Member.(string)
		v, err := z.member(data)
		if err != nil {
			return nil, z.base.Fail(ctx, op, err)
		}
		out = append(out, ScoredEntry[T]{Value: v, Score: e.Score})
	}
	return out, nil
}

// PollFirst removes and returns the member with the lowest score, and false
// when the set is empty (Redisson's pollFirst script: ZRANGE 0 0 and
// ZREMRANGEBYRANK 0 0).
func (z *ScoredSortedSet[T]) PollFirst(ctx context.Context) (T, bool, error) {
	if z == nil {
		return *new(T), false, core.NilHandle("scored sorted set", "poll first")
	}
	return z.poll(ctx, "poll first", 0)
}

// PollLast removes and returns the member with the highest score, and false
// when the set is empty (the same script with -1 -1).
func (z *ScoredSortedSet[T]) PollLast(ctx context.Context) (T, bool, error) {
	if z == nil {
		return *new(T), false, core.NilHandle("scored sorted set", "poll last")
	}
	return z.poll(ctx, "poll last", -1)
}

func (z *ScoredSortedSet[T]) poll(ctx context.Context, op string, rank int) (T, bool, error) {
	var zero T
	if err := z.base.Check(ctx, op); err != nil {
		return zero, false, err
	}
	reply, err := z.eval(ctx, zsetPollScript, true, rank, rank)
	if err != nil {
		return zero, false, z.base.Fail(ctx, op, err)
	}
	items, _ := reply.([]any)
	if len(items) == 0 {
		return zero, false, nil
	}
	data, _ := bulk(items[0])
	v, err := decode[T](z.codec, data)
	if err != nil {
		// The member is already removed (as in Java): the error carries
		// all its bytes, so that it is not lost without a trace.
		return zero, false, z.base.Fail(ctx, op, fmt.Errorf("removed member %q, which cannot be decoded: %w", data, err))
	}
	return v, true, nil
}

// Values iterates over the members with ZSCAN (see the package doc,
// Iteration), in no particular order. Options: WithPageSize, WithMatch.
func (z *ScoredSortedSet[T]) Values(ctx context.Context, opts ...ScanOption) iter.Seq2[T, error] {
	if z == nil {
		return core.NilSeq2[T]("scored sorted set", "values")
	}
	return func(yield func(T, error) bool) {
		for e, err := range z.entries(ctx, "iterate", opts, false) {
			if !yield(e.Value, err) || err != nil {
				return
			}
		}
	}
}

// Entries iterates over the members and their scores with ZSCAN, as
// Values does.
func (z *ScoredSortedSet[T]) Entries(ctx context.Context, opts ...ScanOption) iter.Seq2[ScoredEntry[T], error] {
	if z == nil {
		return core.NilSeq2[ScoredEntry[T]]("scored sorted set", "entries")
	}
	return z.entries(ctx, "iterate entries", opts, true)
}

func (z *ScoredSortedSet[T]) entries(ctx context.Context, op string, opts []ScanOption, scores bool) iter.Seq2[ScoredEntry[T], error] {
	return func(yield func(ScoredEntry[T], error) bool) {
		so, err := z.scanOptions(op, opts, false)
		if err != nil {
			yield(ScoredEntry[T]{}, err)
			return
		}
		z.scan(ctx, op, "zscan", so, func(items []any) bool {
			for i := 0; i+1 < len(items); i += 2 {
				if err := z.base.Check(ctx, op); err != nil {
					yield(ScoredEntry[T]{}, err)
					return false
				}
				data, _ := bulk(items[i])
				var e ScoredEntry[T]
				var err error
				e.Value, err = z.member(data)
				if err == nil && scores {
					s, _ := bulk(items[i+1])
					if e.Score, err = strconv.ParseFloat(s, 64); err != nil {
						err = fmt.Errorf("score %q of member %.40q: %w", s, data, err)
					}
				}
				if err != nil {
					yield(ScoredEntry[T]{}, z.base.Fail(ctx, op, err))
					return false
				}
				if !yield(e, nil) {
					return false
				}
			}
			return true
		}, func(err error) { yield(ScoredEntry[T]{}, err) })
	}
}
