package value

import (
	"context"
	"fmt"
	"strconv"

	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/keys"
	"github.com/goredisson/redisson/source"
)

// IdGenerator is Redisson's RIdGenerator: unique, increasing ids handed out
// in blocks. The key name holds the next free id and {name}:allocation the
// block size; NextID takes a block of that many ids from Redis with one
// script (as Java does) and serves them locally, so ids from different
// handles or clients interleave by block, not one by one. A handle keeps
// its block: make one per generator and share it (it is safe for
// concurrent use); a new handle starts with a new block.
type IdGenerator struct {
	object
	alloc string // {name}:allocation
	turn  chan struct{}
	next  int64 // the next id of the block, when left > 0
	left  int64
}

// NewIdGenerator returns the id generator called name of src's client
// ((*redisson.Client).IdGenerator). An empty name, a name whose
// {name}:allocation key hashes to another cluster slot, or a nil or zero
// src gives a handle whose every call fails (ErrInvalidName,
// ErrInvalidArgument).
func NewIdGenerator(src *source.Source, name string) *IdGenerator {
	g := &IdGenerator{
		object: newObject("id generator", src, name),
		alloc:  keys.SuffixName(name, "allocation"),
		turn:   make(chan struct{}, 1),
	}
	g.base.Derives(g.alloc)
	return g
}

// Name returns the generator's name, which is also the key of its next
// free id.
func (g *IdGenerator) Name() string {
	if g == nil {
		return *new(string)
	}
	return g.base.Name()
}

// TryInit sets the first id and the block size when the generator has no
// block size yet, and reports whether it did (Redisson's tryInit script:
// SETNX of both). Without it the first NextID starts at 1 with blocks of
// 5000, as in Java. allocationSize must be at least 1.
func (g *IdGenerator) TryInit(ctx context.Context, first, allocationSize int64) (bool, error) {
	if g == nil {
		return false, core.NilHandle("id generator", "try init")
	}
	const op = "try init"
	if err := g.base.Check(ctx, op); err != nil {
		return false, err
	}
	if allocationSize < 1 {
		return false, g.base.Named(op, fmt.Errorf("%w: the allocation size must be at least 1, got %d", core.ErrInvalidArgument, allocationSize))
	}
	n, err := idTryInitScript.Cmd(ctx, g.base.Redis(), []string{g.base.Name(), g.alloc},
		strconv.FormatInt(first, 10), strconv.FormatInt(allocationSize, 10)).Int64()
	return g.boolResult(ctx, n == 1, op, err)
}

// NextID returns the next id: from the handle's block, or from a new block
// taken from Redis when the block is used up. Callers wait their turn
// (while one takes a block) until ctx is done. A call whose reply is lost
// (ctx done, connection cut) while it takes a block leaves that block
// unused: ids may be skipped, never handed out twice.
func (g *IdGenerator) NextID(ctx context.Context) (int64, error) {
	if g == nil {
		return 0, core.NilHandle("id generator", "next id")
	}
	const op = "next id"
	if err := g.base.Check(ctx, op); err != nil {
		return 0, err
	}
	select {
	case g.turn <- struct{}{}:
	case <-ctx.Done():
		return 0, g.base.Named(op, context.Cause(ctx))
	case <-g.base.Runtime().Closed():
		return 0, g.base.Named(op, context.Cause(g.base.Runtime().Lifetime()))
	}
	defer func() { <-g.turn }()
	if g.left > 0 {
		id := g.next
		g.next++
		g.left--
		return id, nil
	}
	first, size, err := g.block(ctx, op)
	if err != nil {
		return 0, err
	}
	g.next, g.left = first+1, size-1
	return first, nil
}

// block takes a block of ids: its first id and its size.
func (g *IdGenerator) block(ctx context.Context, op string) (first, size int64, err error) {
	reply, err := idNextBlockScript.Cmd(ctx, g.base.Redis(), []string{g.base.Name(), g.alloc}).StringSlice()
	if err != nil {
		return 0, 0, g.base.Fail(ctx, op, err)
	}
	if len(reply) != 2 {
		return 0, 0, g.base.Named(op, fmt.Errorf("unexpected reply %q", reply))
	}
	first, err1 := strconv.ParseInt(reply[0], 10, 64)
	size, err2 := strconv.ParseInt(reply[1], 10, 64)
	if err1 != nil || err2 != nil || size < 1 {
		return 0, 0, g.base.Named(op, fmt.Errorf("%w: the generator holds %q as its next id and %q as its block size", core.ErrWrongType, reply[0], reply[1]))
	}
	return first, size, nil
}

// Delete deletes both keys of the generator and reports whether any
// existed (DEL); the handle's block is not forgotten.
func (g *IdGenerator) Delete(ctx context.Context) (bool, error) {
	if g == nil {
		return false, core.NilHandle("id generator", "delete")
	}
	const op = "delete"
	if err := g.base.Check(ctx, op); err != nil {
		return false, err
	}
	n, err := g.base.Redis().Del(ctx, g.base.Name(), g.alloc).Result()
	return g.boolResult(ctx, n > 0, op, err)
}
