// Package hll is Redisson's RHyperLogLog: a HyperLogLog (Redis' PFADD,
// PFCOUNT, PFMERGE) whose elements are encoded with a codec both sides
// use, so that Go and Java services count into the same key. Redis keeps
// the estimate; the stored bytes are Redis' own HLL encoding.
//
// Handles are cheap, hold no state besides the name and are safe for
// concurrent use. Every call takes a context first and returns the errors of
// package redisson: ErrInvalidName for an empty name, ErrInvalidArgument for
// a nil codec or a nil element, ErrWrongType when the key holds another
// Redis type (or a string that is no HyperLogLog), ErrClosed after the
// Client's Close; codec errors wrap codec.ErrEncode.
package hll

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson/codec"
	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/internal/objbase"
	"github.com/goredisson/redisson/source"
)

// HyperLogLog is Redisson's RHyperLogLog<T> on the key name.
type HyperLogLog[T any] struct {
	base  objbase.Base
	codec codec.Codec
}

// kind names the HyperLogLog in errors
// (`hyperloglog "<name>": <op>: <cause>`).
const kind = "hyperloglog"

// New returns the HyperLogLog called name of src's client, its elements
// encoded with c (redisson.NewHyperLogLog; Java: getHyperLogLog(name,
// codec)). An empty name, a nil or zero src or a nil codec gives a handle
// whose every call fails (ErrInvalidName, ErrInvalidArgument).
func New[T any](src *source.Source, name string, c codec.Codec) *HyperLogLog[T] {
	h := &HyperLogLog[T]{base: objbase.New(objbase.Kind{Name: kind, Type: "string"}, src, name), codec: c}
	h.base.NeedCodec(c, "codec")
	return h
}

// Name returns the HyperLogLog's name, which is also its key.
func (h *HyperLogLog[T]) Name() string {
	if h == nil {
		return *new(string)
	}
	return h.base.Name()
}

// notHLL maps Redis' refusal of a string that is no HyperLogLog to
// ErrWrongType.
func (h *HyperLogLog[T]) notHLL(ctx context.Context, op string, err error) error {
	var re redis.Error
	if err != nil && errors.As(err, &re) && strings.HasPrefix(re.Error(), "INVALIDOBJ") {
		return h.base.Named(op, fmt.Errorf("%w: a string that is not a HyperLogLog", core.ErrWrongType))
	}
	return h.base.Fail(ctx, op, err)
}

// Add adds v and reports whether the estimate changed (PFADD).
func (h *HyperLogLog[T]) Add(ctx context.Context, v T) (bool, error) {
	if h == nil {
		return false, core.NilHandle(kind, "add")
	}
	return h.add(ctx, "add", []T{v})
}

// AddAll adds every v in one command and reports whether the estimate
// changed (PFADD key v...). No element changes nothing and reports false.
func (h *HyperLogLog[T]) AddAll(ctx context.Context, vs ...T) (bool, error) {
	if h == nil {
		return false, core.NilHandle(kind, "add all")
	}
	return h.add(ctx, "add all", vs)
}

func (h *HyperLogLog[T]) add(ctx context.Context, op string, vs []T) (bool, error) {
	if err := h.base.Check(ctx, op); err != nil {
		return false, err
	}
	if len(vs) == 0 {
		return false, nil
	}
	args := []any{"pfadd", h.base.Name()}
	for _, v := range vs {
		if objbase.IsNull(v) {
			return false, h.base.Named(op, fmt.Errorf("%w: an element must not be nil", core.ErrInvalidArgument))
		}
		data, err := h.codec.Encode(v)
		if err != nil {
			return false, h.base.Named(op, err)
		}
		args = append(args, data)
	}
	n, err := h.base.Redis().Do(ctx, args...).Int64()
	if err != nil {
		return false, h.notHLL(ctx, op, err)
	}
	return n == 1, nil
}

// Count returns the estimated number of distinct elements, 0 when the key
// does not exist (PFCOUNT). Redis caches the estimate in the key, so the
// stored bytes may change.
func (h *HyperLogLog[T]) Count(ctx context.Context) (int64, error) {
	if h == nil {
		return 0, core.NilHandle(kind, "count")
	}
	return h.CountWith(ctx)
}

// CountWith returns the estimated number of distinct elements of the union
// of this HyperLogLog and the named ones, without changing them (PFCOUNT
// name others...).
func (h *HyperLogLog[T]) CountWith(ctx context.Context, others ...string) (int64, error) {
	if h == nil {
		return 0, core.NilHandle(kind, "count with")
	}
	const op = "count"
	if err := h.base.Check(ctx, op); err != nil {
		return 0, err
	}
	n, err := h.base.Redis().PFCount(ctx, append([]string{h.base.Name()}, others...)...).Result()
	if err != nil {
		return 0, h.notHLL(ctx, op, err)
	}
	return n, nil
}

// MergeWith stores the union of this HyperLogLog and the named ones in this
// one (PFMERGE name others...).
func (h *HyperLogLog[T]) MergeWith(ctx context.Context, others ...string) error {
	if h == nil {
		return core.NilHandle(kind, "merge with")
	}
	const op = "merge with"
	if err := h.base.Check(ctx, op); err != nil {
		return err
	}
	return h.notHLL(ctx, op, h.base.Redis().PFMerge(ctx, h.base.Name(), others...).Err())
}

// Delete deletes the key and reports whether it existed (DEL).
func (h *HyperLogLog[T]) Delete(ctx context.Context) (bool, error) {
	if h == nil {
		return false, core.NilHandle(kind, "delete")
	}
	const op = "delete"
	if err := h.base.Check(ctx, op); err != nil {
		return false, err
	}
	n, err := h.base.Redis().Del(ctx, h.base.Name()).Result()
	if err != nil {
		return false, h.base.Fail(ctx, op, err)
	}
	return n == 1, nil
}

// RemainTTL returns the key's remaining time to live (PTTL), -2 (ns) when
// it does not exist, -1 when it has no expiry.
func (h *HyperLogLog[T]) RemainTTL(ctx context.Context) (time.Duration, error) {
	if h == nil {
		return 0, core.NilHandle(kind, "remain ttl")
	}
	const op = "remain TTL"
	if err := h.base.Check(ctx, op); err != nil {
		return 0, err
	}
	d, err := h.base.Redis().PTTL(ctx, h.base.Name()).Result()
	if err != nil {
		return 0, h.base.Fail(ctx, op, err)
	}
	return d, nil
}
