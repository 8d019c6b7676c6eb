// Package value holds Redisson's value objects, wire-identical with Java:
// Bucket (RBucket, one encoded value under a plain key) and AtomicLong
// (RAtomicLong, a decimal counter). A Java service calling
// redisson.getBucket(name, codec) or redisson.getAtomicLong(name) and a Go
// service using the same name and an equivalent codec (see package codec)
// read and write the same key with the same commands and scripts.
//
// Handles are cheap, hold no state besides the name and are safe for
// concurrent use. Every call takes a context first and returns the errors of
// package redisson: ErrInvalidName for an empty name, ErrInvalidArgument for
// a bad TTL or a nil value where Java refuses null, ErrWrongType when the key
// holds another Redis type; codec errors wrap codec.ErrEncode or
// codec.ErrDecode. After the Client's Close every call fails with
// redisson.ErrClosed, without sending a command.
//
// Make them from a client's source.Source (NewBucket, NewAtomicLong), or
// with redisson.NewBucket and (*redisson.Client).AtomicLong, which are the
// same.
package value

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson/codec"
	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/source"
)

// Bucket is Redisson's RBucket<T>: one value stored under the key name (the
// name as it is, no prefix or hash tag), encoded with a codec both sides
// use. Redisson's commands are sent as Java sends them: GET, SET, PSETEX,
// SETNX, SET ... PX ms NX|XX, GETSET, DEL, PTTL, and the same scripts for
// compare-and-set and get-and-delete.
//
// Java's null is a nil T (a nil pointer, interface, map or slice): setting
// it deletes the key, as RBucket.set(null) does; a missing key reads as
// (zero T, false).
type Bucket[T any] struct {
	object
	codec codec.Codec
}

// NewBucket returns the bucket called name of src's client, encoded with c
// (redisson.NewBucket). An empty name, a nil or zero src or a nil codec
// gives a handle whose every call fails (ErrInvalidName,
// ErrInvalidArgument).
func NewBucket[T any](src *source.Source, name string, c codec.Codec) *Bucket[T] {
	b := &Bucket[T]{object: newObject("bucket", src, name), codec: c}
	b.base.NeedCodec(c, "codec")
	return b
}

// Name returns the bucket's name, which is also its key.
func (b *Bucket[T]) Name() string {
	if b == nil {
		return *new(string)
	}
	return b.base.Name()
}

// isNull reports whether v is Java's null: a nil pointer, interface, map,
// slice, channel or function, or the empty codec.Decimal (which the codecs
// write as null).
func isNull(v any) bool {
	if v == nil {
		return true
	}
	if d, ok := v.(codec.Decimal); ok {
		return d == ""
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Pointer, reflect.Interface, reflect.Map, reflect.Slice, reflect.Chan, reflect.Func:
		return rv.IsNil()
	}
	return false
}

func (b *Bucket[T]) encode(op string, v T) ([]byte, error) {
	data, err := b.codec.Encode(v)
	if err != nil {
		return nil, b.base.Named(op, err)
	}
	return data, nil
}

// decode decodes a reply holding the value, or redis.Nil for none.
func (b *Bucket[T]) decode(ctx context.Context, op string, data string, err error) (T, bool, error) {
	var v T
	if errors.Is(err, redis.Nil) {
		return v, false, nil
	}
	if err != nil {
		return v, false, b.base.Fail(ctx, op, err)
	}
	if err := b.codec.Decode([]byte(data), &v); err != nil {
		return v, false, b.base.Fail(ctx, op, err)
	}
	return v, true, nil
}

// ttlMillis validates a TTL and converts it as Java's Duration.toMillis
// does (truncating).
func (o *object) ttlMillis(op string, ttl time.Duration) (int64, error) {
	if ttl < time.Millisecond {
		return 0, o.base.Named(op, fmt.Errorf("%w: the TTL must be at least 1ms, got %v", core.ErrInvalidArgument, ttl))
	}
	return ttl.Milliseconds(), nil
}

func (o *object) nullArgument(op string) error {
	return o.base.Named(op, fmt.Errorf("%w: the value must not be nil", core.ErrInvalidArgument))
}

// Get returns the value, and false when the key does not exist (GET).
func (b *Bucket[T]) Get(ctx context.Context) (T, bool, error) {
	if b == nil {
		return *new(T), false, core.NilHandle("bucket", "get")
	}
	if err := b.base.Check(ctx, "get"); err != nil {
		var zero T
		return zero, false, err
	}
	data, err := b.base.Redis().Get(ctx, b.base.Name()).Result()
	return b.decode(ctx, "get", data, err)
}

// Set stores v without a TTL, removing any TTL (SET); a nil v deletes the
// key (DEL).
func (b *Bucket[T]) Set(ctx context.Context, v T) error {
	if b == nil {
		return core.NilHandle("bucket", "set")
	}
	const op = "set"
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
	return b.base.Fail(ctx, op, b.base.Redis().Set(ctx, b.base.Name(), data, 0).Err())
}

// SetTTL stores v with a time to live, at least 1ms, in whole milliseconds
// (PSETEX); a nil v deletes the key (DEL).
func (b *Bucket[T]) SetTTL(ctx context.Context, v T, ttl time.Duration) error {
	if b == nil {
		return core.NilHandle("bucket", "set ttl")
	}
	const op = "set with TTL"
	if err := b.base.Check(ctx, op); err != nil {
		return err
	}
	ms, err := b.ttlMillis(op, ttl)
	if err != nil {
		return err
	}
	if isNull(v) {
		return b.base.Fail(ctx, op, b.base.Redis().Del(ctx, b.base.Name()).Err())
	}
	data, err := b.encode(op, v)
	if err != nil {
		return err
	}
	return b.base.Fail(ctx, op, b.base.Redis().Do(ctx, "psetex", b.base.Name(), ms, data).Err())
}

// SetIfAbsent stores v when the key does not exist and reports whether it
// did (SETNX). For a nil v it only reports whether the key is absent
// (EXISTS), as Java's setIfAbsent(null).
func (b *Bucket[T]) SetIfAbsent(ctx context.Context, v T) (bool, error) {
	if b == nil {
		return false, core.NilHandle("bucket", "set if absent")
	}
	const op = "set if absent"
	if err := b.base.Check(ctx, op); err != nil {
		return false, err
	}
	if isNull(v) {
		n, err := b.base.Redis().Exists(ctx, b.base.Name()).Result()
		return b.boolResult(ctx, n == 0, op, err)
	}
	data, err := b.encode(op, v)
	if err != nil {
		return false, err
	}
	// SETNX itself, as Java sends it (go-redis' SetNX sends SET ... NX).
	n, err := b.base.Redis().Do(ctx, "setnx", b.base.Name(), data).Int64()
	return b.boolResult(ctx, n == 1, op, err)
}

// SetIfAbsentTTL stores v with a TTL when the key does not exist and
// reports whether it did (SET key v PX ms NX). v must not be nil.
func (b *Bucket[T]) SetIfAbsentTTL(ctx context.Context, v T, ttl time.Duration) (bool, error) {
	if b == nil {
		return false, core.NilHandle("bucket", "set if absent ttl")
	}
	return b.setWithMode(ctx, "set if absent with TTL", v, ttl, "NX")
}

// SetIfExists replaces the value when the key exists and reports whether it
// did (SET key v XX; the TTL is removed, as in Java). A nil v deletes an
// existing key, with Redisson's script.
func (b *Bucket[T]) SetIfExists(ctx context.Context, v T) (bool, error) {
	if b == nil {
		return false, core.NilHandle("bucket", "set if exists")
	}
	const op = "set if exists"
	if err := b.base.Check(ctx, op); err != nil {
		return false, err
	}
	if isNull(v) {
		n, err := deleteIfExistsScript.Cmd(ctx, b.base.Redis(), []string{b.base.Name()}).Int64()
		return b.boolResult(ctx, n == 1, op, err)
	}
	data, err := b.encode(op, v)
	if err != nil {
		return false, err
	}
	return b.setReply(ctx, op, b.base.Redis().Do(ctx, "set", b.base.Name(), data, "XX").Err())
}

// SetIfExistsTTL replaces the value and sets a TTL when the key exists and
// reports whether it did (SET key v PX ms XX). v must not be nil.
func (b *Bucket[T]) SetIfExistsTTL(ctx context.Context, v T, ttl time.Duration) (bool, error) {
	if b == nil {
		return false, core.NilHandle("bucket", "set if exists ttl")
	}
	return b.setWithMode(ctx, "set if exists with TTL", v, ttl, "XX")
}

func (b *Bucket[T]) setWithMode(ctx context.Context, op string, v T, ttl time.Duration, mode string) (bool, error) {
	if err := b.base.Check(ctx, op); err != nil {
		return false, err
	}
	ms, err := b.ttlMillis(op, ttl)
	if err != nil {
		return false, err
	}
	if isNull(v) {
		return false, b.nullArgument(op)
	}
	data, err := b.encode(op, v)
	if err != nil {
		return false, err
	}
	return b.setReply(ctx, op, b.base.Redis().Do(ctx, "set", b.base.Name(), data, "PX", ms, mode).Err())
}

// setReply maps a conditional SET reply: OK → true, nil → false.
func (b *Bucket[T]) setReply(ctx context.Context, op string, err error) (bool, error) {
	if errors.Is(err, redis.Nil) {
		return false, nil
	}
	if err != nil {
		return false, b.base.Fail(ctx, op, err)
	}
	return true, nil
}

// CompareAndSet replaces the value with update when the stored bytes equal
// expect's encoding and reports whether it did, as Java's compareAndSet: a
// script comparing bytes (the TTL is removed); a nil expect means "absent"
// (SETNX update), a nil update deletes the key on a match.
func (b *Bucket[T]) CompareAndSet(ctx context.Context, expect, update T) (bool, error) {
	if b == nil {
		return false, core.NilHandle("bucket", "compare and set")
	}
	const op = "compare and set"
	if err := b.base.Check(ctx, op); err != nil {
		return false, err
	}
	if isNull(expect) {
		return b.SetIfAbsent(ctx, update) // with a nil update too: only checks
	}
	want, err := b.encode(op, expect)
	if err != nil {
		return false, err
	}
	var n int64
	if isNull(update) {
		n, err = deleteIfEqualScript.Cmd(ctx, b.base.Redis(), []string{b.base.Name()}, want).Int64()
	} else {
		var data []byte
		if data, err = b.encode(op, update); err != nil {
			return false, err
		}
		n, err = compareAndSetScript.Cmd(ctx, b.base.Redis(), []string{b.base.Name()}, want, data).Int64()
	}
	return b.boolResult(ctx, n == 1, op, err)
}

// GetAndSet stores v (removing the TTL) and returns the previous value, and
// whether there was one (GETSET). A nil v deletes the key, with Redisson's
// script.
func (b *Bucket[T]) GetAndSet(ctx context.Context, v T) (T, bool, error) {
	if b == nil {
		return *new(T), false, core.NilHandle("bucket", "get and set")
	}
	const op = "get and set"
	if err := b.base.Check(ctx, op); err != nil {
		var zero T
		return zero, false, err
	}
	if isNull(v) {
		data, err := getAndDeleteScript.Cmd(ctx, b.base.Redis(), []string{b.base.Name()}).Text()
		return b.decode(ctx, op, data, err)
	}
	enc, err := b.encode(op, v)
	if err != nil {
		var zero T
		return zero, false, err
	}
	data, err := b.base.Redis().GetSet(ctx, b.base.Name(), enc).Result()
	return b.decode(ctx, op, data, err)
}

// GetAndSetTTL stores v with a TTL and returns the previous value, and
// whether there was one (Redisson's GET + PSETEX script).
func (b *Bucket[T]) GetAndSetTTL(ctx context.Context, v T, ttl time.Duration) (T, bool, error) {
	if b == nil {
		return *new(T), false, core.NilHandle("bucket", "get and set ttl")
	}
	const op = "get and set with TTL"
	var zero T
	if err := b.base.Check(ctx, op); err != nil {
		return zero, false, err
	}
	ms, err := b.ttlMillis(op, ttl)
	if err != nil {
		return zero, false, err
	}
	if isNull(v) {
		return zero, false, b.nullArgument(op)
	}
	enc, err := b.encode(op, v)
	if err != nil {
		return zero, false, err
	}
	data, err := getAndSetTTLScript.Cmd(ctx, b.base.Redis(), []string{b.base.Name()}, enc, ms).Text()
	return b.decode(ctx, op, data, err)
}

// GetAndDelete deletes the key and returns the value it held, and whether
// there was one (Redisson's GET + DEL script).
func (b *Bucket[T]) GetAndDelete(ctx context.Context) (T, bool, error) {
	if b == nil {
		return *new(T), false, core.NilHandle("bucket", "get and delete")
	}
	if err := b.base.Check(ctx, "get and delete"); err != nil {
		var zero T
		return zero, false, err
	}
	data, err := getAndDeleteScript.Cmd(ctx, b.base.Redis(), []string{b.base.Name()}).Text()
	return b.decode(ctx, "get and delete", data, err)
}

// Delete deletes the key and reports whether it existed (DEL).
func (b *Bucket[T]) Delete(ctx context.Context) (bool, error) {
	if b == nil {
		return false, core.NilHandle("bucket", "delete")
	}
	return b.delete(ctx)
}

// RemainTTL returns the key's remaining time to live (PTTL), with go-redis'
// conventions for the special cases: -2 (nanoseconds) when the key does not
// exist, -1 when it has no expiry. Java's remainTimeToLive returns the same
// numbers in milliseconds.
func (b *Bucket[T]) RemainTTL(ctx context.Context) (time.Duration, error) {
	if b == nil {
		return *new(time.Duration), core.NilHandle("bucket", "remain ttl")
	}
	return b.remainTTL(ctx)
}
