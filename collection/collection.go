// Package collection holds Redisson's collections, wire-identical with
// Java: Map (RMap, a hash), List (RList, a list), Set (RSet, a set) and
// ScoredSortedSet (RScoredSortedSet, a sorted set). A Java service calling
// redisson.getMap(name, codec) and a Go service using the same name and an
// equivalent codec (see package codec) read and write the same key with the
// same commands and scripts, Redisson 3.52 and 4.7 alike (their collection
// commands are the same; only the codecs differ, see codec.UUIDTypeInfo).
//
// Make them from a client's Source: NewMap[K, V](client.Source(), name,
// codec) and its kin, or redisson.NewMap[K, V](client, name, codec), the
// same constructor spelled shorter. Handles are cheap, hold no state besides the name and
// are safe for concurrent use.
//
// # Iteration
//
// Keys, Values and Entries walk a collection in pages, never in one
// command: HSCAN, SSCAN and ZSCAN with COUNT 10 (Redisson's page, see
// WithPageSize) and LRANGE pages for a list. Each returns an iter.Seq2
// whose second value is an error:
//
//	for e, err := range m.Entries(ctx) {
//		if err != nil {
//			return err // the last pair: a failed page, a value the codec cannot read, ctx done
//		}
//		use(e.Key, e.Value)
//	}
//
// An error ends the iteration: it is the last pair, never skipped, so a
// value the codec cannot decode is never dropped in silence. ctx bounds
// every page and is checked before every element. Scans have Redis' SCAN
// guarantees: an element present from start to end is seen at least once,
// and may be seen twice if the collection grows meanwhile; one added or
// removed meanwhile may or may not be seen. A list is read by index, so an
// element removed before the current position shifts the rest and one may
// be skipped (as with Java's list iterator). ReadAll reads a collection in
// one command (HGETALL, LRANGE 0 -1, SMEMBERS, ZRANGE 0 -1) when the caller
// knows it is small.
//
// # Failures
//
// Every call takes a context first and returns errors shaped
// `<kind> "<name>": <operation>: <cause>`: ErrInvalidName for an empty name,
// ErrInvalidArgument for a nil codec, a nil value (Java refuses null) or an
// index out of range, ErrWrongType when the key holds another Redis type
// (saying which), ErrClosed after the Client's Close; codec errors wrap
// codec.ErrEncode or codec.ErrDecode. Every argument is encoded before
// anything is sent, so a value the codec cannot represent leaves Redis
// untouched.
//
// Reads are retried by go-redis as usual; writes are sent at most once: a
// write whose reply is lost (a connection reset, a timeout, a failover)
// returns the error and may or may not have been applied, but it is never
// applied twice by the library (an element pushed twice, a counter added to
// twice, an element popped and lost).
package collection

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
	"github.com/goredisson/redisson/source"
)

// DefaultPageSize is the COUNT of a scan and the length of a list page
// when WithPageSize is not given: Redisson's iterators use 10.
const DefaultPageSize = 10

// object is what every collection handle has: its key, its client, how
// its errors name it, and the Redis type its key holds.
type object struct {
	kind  string        // "map", "list", "set", "scored sorted set"
	redis string        // the Redis type: "hash", "list", "set", "zset"
	rt    *core.Runtime // the client's: its Redis client and lifetime
	name  string
	err   error // the constructor's: an empty name, a nil source or codec
}

func newObject(kind, redisType string, src *source.Source, name string, cd codec.Codec) object {
	o := object{kind: kind, redis: redisType, rt: (*handle.Source)(src).Runtime(), name: name}
	switch {
	case name == "":
		o.err = fmt.Errorf("%w: the name must not be empty", core.ErrInvalidName)
	case o.rt == nil || o.rt.Redis() == nil:
		o.err = fmt.Errorf("%w: no client (make collections with redisson.NewMap and its kin)", core.ErrInvalidArgument)
	case cd == nil:
		o.err = fmt.Errorf("%w: nil codec", core.ErrInvalidArgument)
	}
	return o
}

func (o *object) rdb() redis.UniversalClient { return o.rt.Redis() }

// check returns why a call cannot be made: an invalid handle, a nil
// context, a closed client, a done context. Nothing is sent then.
func (o *object) check(ctx context.Context, op string) error {
	if o.err != nil {
		return o.named(op, o.err)
	}
	if err := o.rt.Check(ctx); err != nil {
		// A nil ctx, a closed client, a done ctx.
		return o.named(op, err)
	}
	return nil
}

// fail names the object and op in err. A WRONGTYPE reply becomes
// ErrWrongType saying what the key holds (one TYPE, on this error path
// only).
func (o *object) fail(ctx context.Context, op string, err error) error {
	if err == nil {
		return nil
	}
	// A script's WRONGTYPE reply comes as ErrWrongType itself; words of
	// our own around it (AddAndGet's) already say what is wrong.
	if ctx != nil && (err == core.ErrWrongType || isWrongType(err)) {
		err = core.WrongTypeError(ctx, o.rdb(), o.name, o.redis)
	}
	return o.named(op, err)
}

// named names the object and op in err, asking Redis nothing: for errors
// found before anything is sent.
func (o *object) named(op string, err error) error {
	if err == nil {
		return nil
	}
	return &core.ObjectError{Kind: o.kind, Name: o.name, Op: op, Err: err}
}

func isWrongType(err error) bool {
	var re redis.Error
	return errors.As(err, &re) && strings.HasPrefix(re.Error(), "WRONGTYPE")
}

// invalid returns an ErrInvalidArgument error of op, before anything is sent.
func (o *object) invalid(op, format string, a ...any) error {
	return o.named(op, fmt.Errorf("%w: "+format, append([]any{core.ErrInvalidArgument}, a...)...))
}

// bounded runs call so that it returns by ctx's end even when go-redis
// would wait for its own ReadTimeout (see conns.Bounded).
func bounded[T any](ctx context.Context, o *object, call func(context.Context) (T, error)) (T, error) {
	if !o.rt.Conns().NeedsBound(ctx) {
		return call(ctx)
	}
	return conns.Bounded(ctx, call)
}

// noRetryCmd is a command go-redis must not send a second time when its
// reply is lost: a second RPUSH would add the element twice, a second LPOP
// would pop another and lose the first.
type noRetryCmd struct{ *redis.Cmd }

func (noRetryCmd) NoRetry() bool { return true }

// read sends a read-only command (go-redis may retry it) and returns it.
func (o *object) read(ctx context.Context, args ...any) (*redis.Cmd, error) {
	return o.send(ctx, true, args)
}

// write sends a command at most once and returns it.
func (o *object) write(ctx context.Context, args ...any) (*redis.Cmd, error) {
	return o.send(ctx, false, args)
}

func (o *object) send(ctx context.Context, retry bool, args []any) (*redis.Cmd, error) {
	return bounded(ctx, o, func(ctx context.Context) (*redis.Cmd, error) {
		cmd := redis.NewCmd(ctx, args...)
		cmd.SetFirstKeyPos(1)
		var send redis.Cmder = cmd
		if !retry {
			send = noRetryCmd{cmd}
		}
		err := o.rdb().Process(ctx, send)
		if errors.Is(err, redis.Nil) {
			err = nil
		}
		return cmd, err
	})
}

// eval runs one of the scripts; writes at most once.
func (o *object) eval(ctx context.Context, s *core.Script, write bool, args ...any) (any, error) {
	return bounded(ctx, o, func(ctx context.Context) (any, error) {
		if write {
			return s.RunNoRetry(ctx, o.rdb(), []string{o.name}, args...)
		}
		return s.Run(ctx, o.rdb(), []string{o.name}, args...)
	})
}

// delete is Delete of every kind (DEL).
func (o *object) delete(ctx context.Context) (bool, error) {
	const op = "delete"
	if err := o.check(ctx, op); err != nil {
		return false, err
	}
	cmd, err := o.write(ctx, "del", o.name)
	if err != nil {
		return false, o.fail(ctx, op, err)
	}
	n, _ := cmd.Int64()
	return n == 1, nil
}

// size is the size of every kind (HLEN, LLEN, SCARD, ZCARD).
func (o *object) size(ctx context.Context, command string) (int64, error) {
	const op = "size"
	if err := o.check(ctx, op); err != nil {
		return 0, err
	}
	cmd, err := o.read(ctx, command, o.name)
	if err != nil {
		return 0, o.fail(ctx, op, err)
	}
	n, err := cmd.Int64()
	if err != nil {
		return 0, o.fail(ctx, op, err)
	}
	return n, nil
}

// isNull reports whether v is Java's null: a nil pointer, interface, map,
// slice, channel or function. Redisson refuses null keys, values and
// elements before it sends anything.
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

// encoder encodes the arguments of one call, all before anything is sent.
type encoder struct {
	o   *object
	op  string
	cd  codec.Codec
	err error
}

// enc returns v's bytes, or nil after the first failure (kept in e.err).
func (e *encoder) enc(what string, v any) []byte {
	if e.err != nil {
		return nil
	}
	if isNull(v) {
		e.err = e.o.invalid(e.op, "the %s must not be nil (Redisson refuses null)", what)
		return nil
	}
	data, err := e.cd.Encode(v)
	if err != nil {
		e.err = e.o.named(e.op, err)
		return nil
	}
	return data
}

// decode decodes data with cd into a T, naming what it is in the error.
func decode[T any](cd codec.Codec, data string) (T, error) {
	var v T
	err := cd.Decode([]byte(data), &v)
	return v, err
}

// bulk returns a reply element as its bytes: a bulk string, or nil for
// none (RESP2 and RESP3 alike).
func bulk(v any) (string, bool) {
	s, ok := v.(string)
	return s, ok
}

// ScanOption configures one iteration.
type ScanOption func(*scanOptions)

type scanOptions struct {
	page  int
	match string
}

// WithPageSize sets how many elements one page asks for: the COUNT of
// HSCAN, SSCAN and ZSCAN (a hint to Redis), the length of a list's LRANGE
// page. At least 1; default DefaultPageSize.
func WithPageSize(n int) ScanOption { return func(o *scanOptions) { o.page = n } }

// WithMatch keeps only the elements (map keys) whose encoded bytes match
// the glob pattern, as Redisson's iterator(pattern) does: MATCH of HSCAN,
// SSCAN and ZSCAN, applied by Redis to what the codec wrote (with
// JsonJackson a string key "a" is stored as "\"a\""). Lists have no MATCH.
func WithMatch(pattern string) ScanOption { return func(o *scanOptions) { o.match = pattern } }

func (o *object) scanOptions(op string, opts []ScanOption, list bool) (scanOptions, error) {
	so := scanOptions{page: DefaultPageSize}
	for _, opt := range opts {
		if opt != nil {
			opt(&so)
		}
	}
	if so.page < 1 {
		return so, o.invalid(op, "the page size must be at least 1, got %d", so.page)
	}
	if list && so.match != "" {
		return so, o.invalid(op, "a list has no MATCH: WithMatch is for maps, sets and sorted sets")
	}
	return so, nil
}

// scan walks the key with command (HSCAN, SSCAN, ZSCAN) and hands each
// page's flat reply to page, which yields; it stops when page returns
// false. Errors go to fail, which yields them.
func (o *object) scan(ctx context.Context, op, command string, so scanOptions, page func(items []any) bool, fail func(error)) {
	cursor := "0"
	for {
		if err := o.check(ctx, op); err != nil {
			fail(err)
			return
		}
		args := []any{command, o.name, cursor}
		if so.match != "" {
			args = append(args, "MATCH", so.match)
		}
		args = append(args, "COUNT", so.page)
		cmd, err := o.read(ctx, args...)
		if err != nil {
			fail(o.fail(ctx, op, err))
			return
		}
		reply, err := cmd.Slice()
		if err == nil && len(reply) != 2 {
			err = fmt.Errorf("unexpected %s reply %v", command, reply)
		}
		var items []any
		if err == nil {
			var ok bool
			if items, ok = reply[1].([]any); !ok {
				err = fmt.Errorf("unexpected %s reply %v", command, reply)
			}
		}
		if err != nil {
			fail(o.fail(ctx, op, err))
			return
		}
		if !page(items) {
			return
		}
		next, _ := reply[0].(string)
		if next == "0" || next == "" {
			return
		}
		cursor = next
	}
}
