package core

import (
	"context"
	"math"
	"math/rand/v2"
)

// Go has no thread ids, so an owner (Redisson's thread) is an int64 carried in
// a context. It is combined with each client's id into the hash field
// "<client id>:<owner id>", so one owner id serves every lock of every client,
// as a Java thread id does.

type ownerKey struct{}

// WithOwnerID returns a context whose owner is id.
func WithOwnerID(ctx context.Context, id int64) context.Context {
	return context.WithValue(ctx, ownerKey{}, id)
}

// WithNewOwner returns a context with a fresh random owner id. Random 63-bit
// ids make collisions negligible without any shared counter.
func WithNewOwner(ctx context.Context) context.Context {
	return WithOwnerID(ctx, NewOwnerID())
}

// NewOwnerID returns a random positive owner id.
func NewOwnerID() int64 {
	return rand.Int64N(math.MaxInt64-1) + 1
}

// OwnerFrom returns the owner id carried by ctx.
func OwnerFrom(ctx context.Context) (int64, bool) {
	id, ok := ctx.Value(ownerKey{}).(int64)
	return id, ok
}

// EnsureOwner returns ctx and its owner id, adding a fresh owner when ctx has
// none.
func EnsureOwner(ctx context.Context) (context.Context, int64) {
	if id, ok := OwnerFrom(ctx); ok {
		return ctx, id
	}
	id := NewOwnerID()
	return WithOwnerID(ctx, id), id
}
