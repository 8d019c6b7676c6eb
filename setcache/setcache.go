// Package setcache is Redisson's RSetCache: a set whose members each have
// their own time to live, wire-identical with Java. A Java service calling
// redisson.getSetCache(name, codec) and a Go service using the same name
// and an equivalent codec (see package codec) share one Redis sorted set,
// Redisson 3.52 and 4.7 alike: each member is the encoded value, its score
// the expiry time in milliseconds since the epoch (92233720368547758 for a
// member without a TTL).
//
// Redis does not expire members of a sorted set. Every read decides with
// the caller's clock, as Redisson's scripts do, so an expired member is
// never returned, counted or reported as present, even while it is still
// stored. Stored expired members are removed by the clean-up that every
// client holding a SetCache runs (Redisson's eviction task, paced by
// redisson.Options.CleanUp): one task per name and client, sharing each
// run with Java's clients and other Go clients through Redis' run-once
// latch, and publishing each removed member on the expired channel as
// Redisson 4.7 does (see SubscribeExpired).
//
// Make one with New(client.Source(), name, codec), or
// redisson.NewSetCache[T](client, name, codec), the same constructor
// spelled shorter. Handles are cheap and safe for concurrent use.
//
// # Failures
//
// Every call takes a context first and returns errors shaped
// `set cache "<name>": <operation>: <cause>`: ErrInvalidName for an empty
// name, ErrInvalidArgument for a nil codec, a nil value (Java refuses null)
// or a negative TTL, ErrWrongType when the key holds another Redis type
// (saying which), ErrClosed after the Client's Close; codec errors wrap
// codec.ErrEncode or codec.ErrDecode. Every argument is encoded before
// anything is sent. Reads may be retried by go-redis; writes are sent at
// most once.
package setcache

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson/codec"
	"github.com/goredisson/redisson/internal/conns"
	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/internal/handle"
	"github.com/goredisson/redisson/internal/lua"
	"github.com/goredisson/redisson/keys"
	"github.com/goredisson/redisson/source"
)

// kind names the object in errors.
const kind = "set cache"

// NoExpiry is the score of a member without a time to live, Redisson's
// 92233720368547758 (the largest long divided by 100). Redis stores it as
// the nearest double, 92233720368547760.
const NoExpiry int64 = 92233720368547758

// DefaultPageSize is the ZSCAN COUNT of All when WithPageSize is not
// given: Redisson's iterators use 10.
const DefaultPageSize = 10

// Redisson's set-cache scripts.
var (
	addScript      = core.NewScript("set cache add", lua.MustText(luaFiles, "lua/set_cache_add.lua"))
	addAllScript   = core.NewScript("set cache add all", lua.MustText(luaFiles, "lua/set_cache_add_all.lua"))
	containsScript = core.NewScript("set cache contains", lua.MustText(luaFiles, "lua/set_cache_contains.lua"))
	sizeScript     = core.NewScript("set cache size", lua.MustText(luaFiles, "lua/set_cache_size.lua"))
	scanScript     = core.NewScript("set cache scan", lua.MustText(luaFiles, "lua/set_cache_scan.lua"))
	evictScript    = core.NewScript("set cache evict", lua.MustText(luaFiles, "lua/set_cache_evict.lua"))
)

// ExpiredChannel is the channel on which the clean-up publishes each
// expired member it removes: Redisson 4.7's
// redisson_set_cache_expired:{name}.
func ExpiredChannel(name string) string { return keys.PrefixName("redisson_set_cache_expired", name) }

// TaskLatch is the run-once latch of the clean-up of name, which every
// Redisson 4.7 client and every Go client takes before a run:
// redisson__execute_task_once_latch:{name}.
func TaskLatch(name string) string {
	return keys.PrefixName("redisson__execute_task_once_latch", name)
}

// SetCache is Redisson's RSetCache<V>: a Redis sorted set under the key
// name whose members are the encoded values and whose scores are their
// expiry times. Members are equal when their bytes are. Java's null is
// refused as a member.
type SetCache[T any] struct {
	src   *source.Source
	rt    *core.Runtime
	name  string
	codec codec.Codec
	err   error // the constructor's: an empty name, a nil source or codec
}

// New returns the set cache called name, its members encoded with cd
// (Redisson's getSetCache(name, codec)), and starts the client's clean-up
// of it unless it runs already. An empty name, a nil source or a nil codec
// gives a handle whose every call fails.
func New[T any](src *source.Source, name string, cd codec.Codec) *SetCache[T] {
	s := &SetCache[T]{src: src, rt: (*handle.Source)(src).Runtime(), name: name, codec: cd}
	switch {
	case name == "":
		s.err = fmt.Errorf("%w: the name must not be empty", core.ErrInvalidName)
	case s.rt == nil || s.rt.Redis() == nil:
		s.err = fmt.Errorf("%w: no client (make set caches with redisson.NewSetCache)", core.ErrInvalidArgument)
	case cd == nil:
		s.err = fmt.Errorf("%w: nil codec", core.ErrInvalidArgument)
	}
	s.schedule()
	return s
}

// Name returns the set cache's name, which is also its key.
func (s *SetCache[T]) Name() string {
	if s == nil {
		return ""
	}
	return s.name
}

// schedule starts the clean-up of the name, unless it runs already or
// the handle is invalid. The task is made only when none runs: writes call
// this, and most find it running.
func (s *SetCache[T]) schedule() {
	if s.err == nil && !s.rt.Eviction().Scheduled(s.name) {
		s.rt.Eviction().Schedule(s.name, cleanUp(s.rt, s.name))
	}
}

func (s *SetCache[T]) rdb() redis.UniversalClient { return s.rt.Redis() }

// check returns why a call cannot be made: an invalid handle, a nil
// context, a closed client, a done context. Nothing is sent then.
func (s *SetCache[T]) check(ctx context.Context, op string) error {
	if s.err != nil {
		return s.named(op, s.err)
	}
	if err := s.rt.Check(ctx); err != nil {
		return s.named(op, err)
	}
	return nil
}

// fail names the set cache and op in err. A WRONGTYPE reply becomes
// ErrWrongType saying what the key holds (one TYPE, on this error path
// only).
func (s *SetCache[T]) fail(ctx context.Context, op string, err error) error {
	if err == nil {
		return nil
	}
	if err == core.ErrWrongType || isWrongType(err) {
		err = core.WrongTypeError(ctx, s.rdb(), s.name, "zset")
	}
	return s.named(op, err)
}

func (s *SetCache[T]) named(op string, err error) error {
	return &core.ObjectError{Kind: kind, Name: s.name, Op: op, Err: err}
}

func (s *SetCache[T]) invalid(op, format string, a ...any) error {
	return s.named(op, fmt.Errorf("%w: "+format, append([]any{core.ErrInvalidArgument}, a...)...))
}

func isWrongType(err error) bool {
	var re redis.Error
	return errors.As(err, &re) && strings.HasPrefix(re.Error(), "WRONGTYPE")
}

// bounded runs call so that it returns by ctx's end even when go-redis
// would wait for its own ReadTimeout (see conns.Bounded).
func bounded[R any](ctx context.Context, s *core.Runtime, call func(context.Context) (R, error)) (R, error) {
	if !s.Conns().NeedsBound(ctx) {
		return call(ctx)
	}
	return conns.Bounded(ctx, call)
}

// noRetryCmd is a command go-redis must not send a second time when its
// reply is lost.
type noRetryCmd struct{ *redis.Cmd }

func (noRetryCmd) NoRetry() bool { return true }

// send sends one command on the key (a read may be retried, a write is
// sent at most once) and returns it.
func (s *SetCache[T]) send(ctx context.Context, write bool, args ...any) (*redis.Cmd, error) {
	return bounded(ctx, s.rt, func(ctx context.Context) (*redis.Cmd, error) {
		cmd := redis.NewCmd(ctx, args...)
		cmd.SetFirstKeyPos(1)
		var c redis.Cmder = cmd
		if write {
			c = noRetryCmd{cmd}
		}
		err := s.rdb().Process(ctx, c)
		if errors.Is(err, redis.Nil) {
			err = nil
		}
		return cmd, err
	})
}

// eval runs one of the scripts on the key; writes at most once.
func (s *SetCache[T]) eval(ctx context.Context, sc *core.Script, write bool, args ...any) (any, error) {
	return bounded(ctx, s.rt, func(ctx context.Context) (any, error) {
		if write {
			return sc.RunNoRetry(ctx, s.rdb(), []string{s.name}, args...)
		}
		return sc.Run(ctx, s.rdb(), []string{s.name}, args...)
	})
}

// isNull reports whether v is Java's null: a nil pointer, interface, map,
// slice, channel or function.
func isNull(v any) bool {
	if v == nil {
		return true
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Pointer, reflect.Interface, reflect.Map, reflect.Slice, reflect.Chan, reflect.Func:
		return rv.IsNil()
	}
	return false
}

// encode returns the bytes of member v, refusing Java's null.
func (s *SetCache[T]) encode(op string, v T) ([]byte, error) {
	if isNull(v) {
		return nil, s.invalid(op, "the member must not be nil (Redisson refuses null)")
	}
	data, err := s.codec.Encode(v)
	if err != nil {
		return nil, s.named(op, err)
	}
	return data, nil
}

// member decodes a stored member.
func (s *SetCache[T]) member(data string) (T, error) {
	var v T
	if err := s.codec.Decode([]byte(data), &v); err != nil {
		return v, fmt.Errorf("member %.40q: %w", data, err)
	}
	return v, nil
}
