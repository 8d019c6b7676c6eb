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
	"fmt"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson/codec"
	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/internal/objbase"
	"github.com/goredisson/redisson/source"
)

// DefaultPageSize is the COUNT of a scan and the length of a list page
// when WithPageSize is not given: Redisson's iterators use 10.
const DefaultPageSize = 10

// object is what every collection handle has: its base (key, client,
// how its errors name it and the Redis type its key holds) and the
// commands every kind sends the same way.
type object struct {
	base objbase.Base
}

// newObject returns the object of a collection of kind ("map", "list",
// "set", "scored sorted set") whose key holds redisType ("hash", "list",
// "set", "zset").
func newObject(kind, redisType string, src *source.Source, name string, cd codec.Codec) object {
	o := object{base: objbase.New(objbase.Kind{Name: kind, Type: redisType,
		NoClient: "no client (make collections with redisson.NewMap and its kin)"}, src, name)}
	o.base.NeedCodec(cd, "codec")
	return o
}

// read sends a read-only command (go-redis may retry it) and returns it.
func (o *object) read(ctx context.Context, args ...any) (*redis.Cmd, error) {
	return o.base.Send(ctx, false, args...)
}

// write sends a command at most once and returns it.
func (o *object) write(ctx context.Context, args ...any) (*redis.Cmd, error) {
	return o.base.Send(ctx, true, args...)
}

// eval runs one of the scripts; writes at most once.
func (o *object) eval(ctx context.Context, s *core.Script, write bool, args ...any) (any, error) {
	return o.base.Eval(ctx, s, write, []string{o.base.Name()}, args...)
}

// delete is Delete of every kind (DEL).
func (o *object) delete(ctx context.Context) (bool, error) {
	const op = "delete"
	if err := o.base.Check(ctx, op); err != nil {
		return false, err
	}
	cmd, err := o.write(ctx, "del", o.base.Name())
	if err != nil {
		return false, o.base.Fail(ctx, op, err)
	}
	n, _ := cmd.Int64()
	return n == 1, nil
}

// size is the size of every kind (HLEN, LLEN, SCARD, ZCARD).
func (o *object) size(ctx context.Context, command string) (int64, error) {
	const op = "size"
	if err := o.base.Check(ctx, op); err != nil {
		return 0, err
	}
	cmd, err := o.read(ctx, command, o.base.Name())
	if err != nil {
		return 0, o.base.Fail(ctx, op, err)
	}
	n, err := cmd.Int64()
	if err != nil {
		return 0, o.base.Fail(ctx, op, err)
	}
	return n, nil
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
	data, err := e.o.base.Encode(e.op, what, e.cd, v)
	if err != nil {
		e.err = err
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
		return so, o.base.Invalid(op, "the page size must be at least 1, got %d", so.page)
	}
	if list && so.match != "" {
		return so, o.base.Invalid(op, "a list has no MATCH: WithMatch is for maps, sets and sorted sets")
	}
	return so, nil
}

// scan walks the key with command (HSCAN, SSCAN, ZSCAN) and hands each
// page's flat reply to page, which yields; it stops when page returns
// false. Errors go to fail, which yields them.
func (o *object) scan(ctx context.Context, op, command string, so scanOptions, page func(items []any) bool, fail func(error)) {
	cursor := "0"
	for {
		if err := o.base.Check(ctx, op); err != nil {
			fail(err)
			return
		}
		args := []any{command, o.base.Name(), cursor}
		if so.match != "" {
			args = append(args, "MATCH", so.match)
		}
		args = append(args, "COUNT", so.page)
		cmd, err := o.read(ctx, args...)
		if err != nil {
			fail(o.base.Fail(ctx, op, err))
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
			fail(o.base.Fail(ctx, op, err))
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
