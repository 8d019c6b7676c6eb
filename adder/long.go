package adder

import (
	"context"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/source"
)

// LongAdder is Redisson's RLongAdder: an int64 counted locally, summed
// across instances on request.
type LongAdder struct {
	base
	n atomic.Int64
}

// NewLongAdder returns an adder of the name of src's client, subscribed
// to {name}:adder-topic ((*redisson.Client).LongAdder; Java:
// getLongAdder(name)). An empty name, a nil or zero src, a closed client
// or a failed subscription gives a handle whose Sum and Reset fail.
func NewLongAdder(src *source.Source, name string) *LongAdder {
	a := &LongAdder{}
	a.init("long adder", src, name, false, (*longCounter)(a))
	return a
}

// longCounter is the adder as its group sees it.
type longCounter LongAdder

func (c *longCounter) local() string { return strconv.FormatInt(c.n.Load(), 10) }
func (c *longCounter) reset()        { c.n.Store(0) }

// Name returns the adder's name.
func (a *LongAdder) Name() string {
	if a == nil {
		return *new(string)
	}
	return a.name
}

// Add adds delta to this instance's count; nothing is sent.
func (a *LongAdder) Add(delta int64) {
	if a != nil {
		a.n.Add(delta)
	}
}

// Increment adds 1; Decrement subtracts 1.
func (a *LongAdder) Increment() { a.Add(1) }

// Decrement subtracts 1 from this instance's count.
func (a *LongAdder) Decrement() { a.Add(-1) }

// Sum returns the sum of every instance of the name, in every client.
func (a *LongAdder) Sum(ctx context.Context) (int64, error) {
	if a == nil {
		return 0, core.NilHandle("long adder", "sum")
	}
	s, err := a.sum(ctx)
	if err != nil || s == "" {
		return 0, err
	}
	n, perr := strconv.ParseInt(s, 10, 64)
	if perr != nil {
		return 0, a.named("sum", core.Errorf(core.ErrWrongType, "the counter holds %q, not an integer", s))
	}
	return n, nil
}

// Reset sets every instance of the name, in every client, to 0.
func (a *LongAdder) Reset(ctx context.Context) error {
	if a == nil {
		return core.NilHandle("long adder", "reset")
	}
	return a.reset(ctx)
}

// Close stops this instance from answering (Redisson's destroy); the last
// instance of the name in the client unsubscribes.
func (a *LongAdder) Close() error {
	if a != nil {
		a.close((*longCounter)(a))
	}
	return nil
}

// DoubleAdder is Redisson's RDoubleAdder: a float64 counted locally,
// summed across instances on request.
type DoubleAdder struct {
	base
	mu sync.Mutex
	f  float64
}

// NewDoubleAdder returns a double adder of the name of src's client
// ((*redisson.Client).DoubleAdder; Java: getDoubleAdder(name)).
func NewDoubleAdder(src *source.Source, name string) *DoubleAdder {
	a := &DoubleAdder{}
	a.init("double adder", src, name, true, (*doubleCounter)(a))
	return a
}

// doubleCounter is the adder as its group sees it.
type doubleCounter DoubleAdder

func (c *doubleCounter) local() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return strconv.FormatFloat(c.f, 'g', -1, 64)
}

func (c *doubleCounter) reset() {
	c.mu.Lock()
	c.f = 0
	c.mu.Unlock()
}

// Name returns the adder's name.
func (a *DoubleAdder) Name() string {
	if a == nil {
		return *new(string)
	}
	return a.name
}

// Add adds delta to this instance's count; nothing is sent.
func (a *DoubleAdder) Add(delta float64) {
	if a != nil {
		a.mu.Lock()
		a.f += delta
		a.mu.Unlock()
	}
}

// Increment adds 1.
func (a *DoubleAdder) Increment() { a.Add(1) }

// Decrement subtracts 1.
func (a *DoubleAdder) Decrement() { a.Add(-1) }

// Sum returns the sum of every instance of the name, in every client.
func (a *DoubleAdder) Sum(ctx context.Context) (float64, error) {
	if a == nil {
		return 0, core.NilHandle("double adder", "sum")
	}
	s, err := a.sum(ctx)
	if err != nil || s == "" {
		return 0, err
	}
	f, perr := strconv.ParseFloat(s, 64)
	if perr != nil {
		return 0, a.named("sum", core.Errorf(core.ErrWrongType, "the counter holds %q, not a number", s))
	}
	return f, nil
}

// Reset sets every instance of the name, in every client, to 0.
func (a *DoubleAdder) Reset(ctx context.Context) error {
	if a == nil {
		return core.NilHandle("double adder", "reset")
	}
	return a.reset(ctx)
}

// Close stops this instance from answering; the last instance of the name
// in the client unsubscribes.
func (a *DoubleAdder) Close() error {
	if a != nil {
		a.close((*doubleCounter)(a))
	}
	return nil
}
