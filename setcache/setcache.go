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
	"fmt"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson/codec"
	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/internal/lua"
	"github.com/goredisson/redisson/internal/objbase"
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
	base  objbase.Base
	codec codec.Codec
}

// New returns the set cache called name, its members encoded with cd
// (Redisson's getSetCache(name, codec)), and starts the client's clean-up
// of it unless it runs already. An empty name, a name whose expired
// channel and clean-up latch hash to another cluster slot, a nil source or
// a nil codec gives a handle whose every call fails (ErrInvalidName,
// ErrInvalidArgument).
func New[T any](src *source.Source, name string, cd codec.Codec) *SetCache[T] {
	s := &SetCache[T]{src: src, codec: cd, base: objbase.New(objbase.Kind{Name: kind, Type: "zset",
		NoClient: "no client (make set caches with redisson.NewSetCache)"}, src, name)}
	s.base.Derives(ExpiredChannel(name), TaskLatch(name))
	s.base.NeedCodec(cd, "codec")
	s.schedule()
	return s
}

// Name returns the set cache's name, which is also its key.
func (s *SetCache[T]) Name() string {
	if s == nil {
		return ""
	}
	return s.base.Name()
}

// schedule starts the clean-up of the name, unless it runs already or
// the handle is invalid. The task is made only when none runs: writes call
// this, and most find it running.
func (s *SetCache[T]) schedule() {
	if s.base.Err() == nil && !s.base.Runtime().Eviction().Scheduled(s.base.Name()) {
		s.base.Runtime().Eviction().Schedule(s.base.Name(), cleanUp(s.base.Runtime(), s.base.Name()))
	}
}

// send sends one command on the key (a read may be retried, a write is
// sent at most once) and returns it.
func (s *SetCache[T]) send(ctx context.Context, write bool, args ...any) (*redis.Cmd, error) {
	return s.base.Send(ctx, write, args...)
}

// eval runs one of the scripts on the key; writes at most once.
func (s *SetCache[T]) eval(ctx context.Context, sc *core.Script, write bool, args ...any) (any, error) {
	return s.base.Eval(ctx, sc, write, []string{s.base.Name()}, args...)
}

// encode returns the bytes of member v, refusing Java's null.
func (s *SetCache[T]) encode(op string, v T) ([]byte, error) {
	return s.base.Encode(op, "member", s.codec, v)
}

// member decodes a stored member.
func (s *SetCache[T]) member(data string) (T, error) {
	var v T
	if err := s.codec.Decode([]byte(data), &v); err != nil {
		return v, fmt.Errorf("member %.40q: %w", data, err)
	}
	return v, nil
}
