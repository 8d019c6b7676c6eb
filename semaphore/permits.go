package semaphore

import (
	"context"
	"errors"
	"sync"

	"github.com/goredisson/redisson/internal/core"
)

// Permits are permits taken from a semaphore by AcquirePermits or
// TryAcquirePermits. Keep the value: its Release gives back exactly what was
// taken, once, so a deferred Release can neither leak permits nor give back
// more than were taken. It is safe for concurrent use.
type Permits struct {
	s *Semaphore
	n int
	// mu makes a Release wait for one under way: whether the permits are
	// still held is known only once Redis answered it.
	mu       sync.Mutex
	released bool
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

// Count returns how many permits were taken; 0 for nil Permits.
func (p *Permits) Count() int {
	if p == nil {
		return 0
	}
	return p.n
}

// Name returns the semaphore's name; "" for nil Permits.
func (p *Permits) Name() string {
	if p == nil || p.s == nil {
		return ""
	}
	return p.s.name
}

// Release gives the permits back, as Semaphore.Release does: also with a
// done ctx and after the client is closed. Once they are given back, later
// calls return an error wrapping ErrNotOwner.
//
// A release Redis refused before running it (OOM, NOPERM, READONLY, ...:
// its error matches ErrReleaseRefused, says what Redis answered, and wraps
// ErrNoPermission for an ACL refusal) gave nothing back: the permits stay with p, and Release may be
// called again. A first call whose reply is lost counts as done (a second
// send could create permits): its error says the permits may not have
// been given back. So does one whose script ran but whose message to the
// waiters Redis refused: the permits were given back.
func (p *Permits) Release(ctx context.Context) error {
	const op = "release permits"
	if p == nil || p.s == nil {
		return &core.ObjectError{Kind: "semaphore", Op: op, Err: core.Errorf(core.ErrNotOwner, "nil permits hold nothing")}
	}
	if ctx == nil {
		return p.s.fail(op, core.ErrNilContext)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.released {
		return p.s.fail(op, core.Errorf(core.ErrNotOwner, "these %d permits were already released", p.n))
	}
	if p.n == 0 {
		p.released = true
		return nil
	}
	err := p.s.release(ctx, p.n)
	if !errors.Is(err, core.ErrReleaseRefused) {
		p.released = true
	}
	return p.s.fail(op, err)
}
