package semaphore

import (
	"context"
	"sync/atomic"

	"github.com/goredisson/redisson/internal/core"
)

// Permits are permits taken from a semaphore by AcquirePermits or
// TryAcquirePermits. Keep the value: its Release gives back exactly what was
// taken, once, so a deferred Release can neither leak permits nor give back
// more than were taken. It is safe for concurrent use.
type Permits struct {
	s        *Semaphore
	n        int
	released atomic.Bool
}

// AcquirePermits is Acquire returning the permits taken as a value whose
// Release gives them back.
func (s *Semaphore) AcquirePermits(ctx context.Context, permits int) (*Permits, error) {
	if _, err := s.acquire(ctx, "acquire", permits, true, 0); err != nil {
		return nil, err
	}
	return &Permits{s: s, n: permits}, nil
}

// TryAcquirePermits is TryAcquire returning the permits taken, when it
// took them, as a value whose Release gives them back.
func (s *Semaphore) TryAcquirePermits(ctx context.Context, permits int, opts ...Option) (*Permits, bool, error) {
	ok, err := s.TryAcquire(ctx, permits, opts...)
	if err != nil || !ok {
		return nil, false, err
	}
	return &Permits{s: s, n: permits}, true, nil
}

// Count returns how many permits were taken.
func (p *Permits) Count() int { return p.n }

// Name returns the semaphore's name.
func (p *Permits) Name() string { return p.s.name }

// Release gives the permits back, as Semaphore.Release does: also with a
// done ctx and after the client is closed. Only the first call sends
// anything; later calls return an error wrapping ErrNotOwner. A first call
// whose reply is lost counts as done too (a second send could create
// permits): its error says the permits may not have been given back.
func (p *Permits) Release(ctx context.Context) error {
	const op = "release permits"
	if !p.released.CompareAndSwap(false, true) {
		return p.s.fail(op, core.Errorf(core.ErrNotOwner, "these %d permits were already released", p.n))
	}
	if p.n == 0 {
		return nil
	}
	return p.s.fail(op, p.s.release(ctx, p.n))
}
