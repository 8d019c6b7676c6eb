// Package adder is Redisson's RLongAdder and RDoubleAdder: counters that
// count locally in each instance, with no Redis command per Add, and sum
// or reset across every instance of every client on request. Sum and Reset
// publish "1:<id>" / "0:<id>" on {name}:adder-topic; each subscribed
// client adds its instances' counts to {name}:<id>:counter (or resets
// them) and releases one permit of the semaphore {name}:<id>:semaphore;
// the asker waits for as many permits as PUBLISH counted receivers, then
// reads and deletes the counter. Java and Go instances answer each other.
//
// An instance subscribes when made and until Close: make one per name and
// share it (it is safe for concurrent use); Close it when done, or its
// client keeps answering for it. Sum and Reset take a context first and
// return the errors of package redisson (ErrInvalidName, ErrClosed,
// ErrWrongType when a key holds another Redis type, the context's error).
package adder

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"sync"

	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/internal/handle"
	"github.com/goredisson/redisson/internal/javanum"
	"github.com/goredisson/redisson/internal/lua"
	"github.com/goredisson/redisson/keys"
	"github.com/goredisson/redisson/semaphore"
	"github.com/goredisson/redisson/source"
)

// getAndDeleteScript: the counter of one sum, read and deleted.
var getAndDeleteScript = core.NewScript("adder.getAndDelete", lua.MustText(luaFiles, "lua/get_and_delete.lua"))

// base is what both adders share: the name, the client, the group.
type base struct {
	kind string // "long adder", "double adder"
	src  *source.Source
	rt   *core.Runtime
	name string
	err  error // the constructor's: an empty name, a nil client, a failed subscription
	g    *group

	closeOnce sync.Once
}

func (b *base) init(kind string, src *source.Source, name string, float bool, c counter) {
	b.kind, b.src, b.name = kind, src, name
	b.rt = (*handle.Source)(src).Runtime()
	switch {
	case name == "":
		b.err = fmt.Errorf("%w: the name must not be empty", core.ErrInvalidName)
	case b.rt == nil:
		b.err = fmt.Errorf("%w: nil Redis client", core.ErrInvalidArgument)
	case b.rt.Lifetime().Err() != nil:
		b.err = context.Cause(b.rt.Lifetime())
	default:
		// The topic, counters and semaphores share one tag: {name}.
		b.err = core.CheckName(name, keys.SuffixName(name, "adder-topic"))
	}
	if b.err != nil {
		return
	}
	ctx, cancel := context.WithTimeout(b.rt.Lifetime(), b.rt.Timeout())
	defer cancel()
	b.g, b.err = join(ctx, src, b.rt, name, float, c)
}

func (b *base) named(op string, err error) error {
	if err == nil {
		return nil
	}
	return &core.ObjectError{Kind: b.kind, Name: b.name, Op: op, Err: err}
}

func (b *base) check(ctx context.Context, op string) error {
	switch {
	case b.err != nil:
		return b.named(op, b.err)
	case ctx == nil:
		return b.named(op, core.ErrNilContext)
	case b.rt.Lifetime().Err() != nil:
		return b.named(op, context.Cause(b.rt.Lifetime()))
	}
	return nil
}

// request publishes "<op>:<id>" and waits for every receiver's permit;
// it returns the request id.
func (b *base) request(ctx context.Context, op, msg string) (string, error) {
	if err := b.check(ctx, op); err != nil {
		return "", err
	}
	id := b.rt.RequestID()
	channel := b.g.channel()
	n, err := b.rt.Redis().Publish(ctx, channel, msg+":"+id).Result()
	if err != nil {
		return "", b.named(op, err)
	}
	sem := semaphore.New(b.src, semaphoreName(b.name, id))
	if n > 0 {
		if err := sem.Acquire(ctx, int(n)); err != nil {
			return "", b.named(op, err)
		}
	}
	return id, nil
}

// finish deletes the request's semaphore.
func (b *base) finish(ctx context.Context, op, id string) error {
	if _, err := semaphore.New(b.src, semaphoreName(b.name, id)).Delete(ctx); err != nil {
		return b.named(op, err)
	}
	return nil
}

// sum asks every instance for its count and returns the counter's text.
func (b *base) sum(ctx context.Context) (string, error) {
	const op = "sum"
	id, err := b.request(ctx, op, "1")
	if err != nil {
		return "", err
	}
	v, err := getAndDeleteScript.Run(ctx, b.rt.Redis(), []string{counterName(b.name, id)})
	if err != nil && !isNil(err) {
		return "", b.named(op, err)
	}
	s, _ := v.(string)
	return s, b.finish(ctx, op, id)
}

func (b *base) reset(ctx context.Context) error {
	const op = "reset"
	id, err := b.request(ctx, op, "0")
	if err != nil {
		return err
	}
	return b.finish(ctx, op, id)
}

// close leaves the group (the last instance of the name unsubscribes).
func (b *base) close(c counter) {
	if b == nil || b.g == nil {
		return
	}
	b.closeOnce.Do(func() { b.g.leave(c) })
}

func isNil(err error) bool { return err != nil && err.Error() == "redis: nil" }

func sumInts(local []string) string {
	var n int64
	for _, s := range local {
		v, _ := strconv.ParseInt(s, 10, 64)
		n += v
	}
	return strconv.FormatInt(n, 10)
}

func sumFloats(local []string) string {
	var f float64
	for _, s := range local {
		v, _ := strconv.ParseFloat(s, 64)
		f += v
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		// Redis refuses it, as Java's BigDecimal.valueOf does.
		return strconv.FormatFloat(f, 'g', -1, 64)
	}
	// Redisson's getAndAdd: BigDecimal.valueOf(sum).toPlainString().
	return javanum.JavaPlain(f, 64)
}
